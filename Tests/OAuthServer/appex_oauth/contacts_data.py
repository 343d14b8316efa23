"""Deterministic seed contacts: names in several scripts (Latin with diacritics, Greek, Cyrillic,
Arabic, Hebrew, Devanagari, Thai, Chinese, Japanese, Korean), and, for the hostile ones, markup
and control characters that a renderer must show as text."""
import datetime
import random

SCRIPTS = [
    (["Ada", "Grace", "Katherine", "Alan", "Edsger", "Zoë", "José", "Søren", "Ærin", "Łucja"],
     ["Lovelace", "Hopper", "Johnson", "Turing", "Dijkstra", "Müller", "Øster", "Nuñez", "Wójcik", "Çelik"]),
    (["Αλέξανδρος", "Ελένη", "Νίκος", "Σοφία"], ["Παπαδόπουλος", "Γεωργίου", "Οικονόμου"]),
    (["Анна", "Дмитрий", "Ольга", "Сергей"], ["Иванова", "Петров", "Смирнова", "Кузнецов"]),
    (["فاطمة", "محمد", "ليلى", "عمر"], ["الحسن", "الخطيب", "النجار"]),
    (["נועה", "דוד", "מאיה", "יוסף"], ["כהן", "לוי", "מזרחי"]),
    (["अनन्या", "रवि", "प्रिया", "अर्जुन"], ["शर्मा", "वर्मा", "पटेल"]),
    (["สมชาย", "สุดา", "อนงค์"], ["ใจดี", "ศรีสุข"]),
    (["伟", "芳", "娜", "强"], ["王", "李", "张", "刘"]),
    (["陽菜", "蓮", "結衣", "湊"], ["佐藤", "鈴木", "高橋", "田中"]),
    (["민준", "서연", "지호", "하은"], ["김", "이", "박", "최"]),
]
COMPANIES = ["Analytical Engines", "COBOL & Co", "Langley Research", "Bletchley Park", "Mathematisch Centrum"]
HOSTILE = [
    "<script>alert('x')</script> Mallory",
    "Eve \u202eredaeh\u202c \x1b[31mRED\x1b[0m",
    "\"Quotes\" & <b>Bold</b>\x07",
]


def name(rng, index):
    firsts, lasts = SCRIPTS[index % len(SCRIPTS)]
    first, last = rng.choice(firsts), rng.choice(lasts)
    # Family name first in the scripts that write it so.
    return f"{last}{first}" if index % len(SCRIPTS) in (7, 8) else (f"{last} {first}" if index % len(SCRIPTS) == 9 else f"{first} {last}")


def generate(count, seed, hostile=False, start=None):
    """`count` contacts, the same for the same seed; modified one minute apart, oldest first."""
    rng = random.Random(seed)
    start = start or datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    contacts = []
    seen = {}
    for index in range(count):
        display = HOSTILE[index % len(HOSTILE)] if hostile and index < len(HOSTILE) else name(rng, index)
        # Every name of a user once: a second "Ada Lovelace" becomes "Ada Lovelace 2".
        seen[display] = seen.get(display, 0) + 1
        if seen[display] > 1:
            display = f"{display} {seen[display]}"
        contacts.append({
            "name": display,
            "email": f"contact{index}@example.com",
            "phone": f"+1 555 {index:04d}",
            "company": rng.choice(COMPANIES),
            "note": rng.choice(["Met at the conference.", "Prefers email.", "Call on Fridays.", ""]),
            "modified": start + datetime.timedelta(minutes=index),
        })
    return contacts
