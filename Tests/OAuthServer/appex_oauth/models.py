"""The protected resource ContactsExplorer syncs: each user's contacts, with a modification time
that incremental syncs (modifiedSince) and the RecentContacts widget order by."""
from django.contrib.auth.models import User
from django.db import models


class Contact(models.Model):
    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="contacts")
    name = models.CharField(max_length=300)
    email = models.CharField(max_length=300, blank=True)
    phone = models.CharField(max_length=100, blank=True)
    company = models.CharField(max_length=300, blank=True)
    note = models.TextField(blank=True)
    modified = models.DateTimeField(db_index=True)

    class Meta:
        indexes = [models.Index(fields=["owner", "modified", "id"], name="appex_oauth_owner_i_modidx")]

    def as_json(self):
        return {
            "id": str(self.pk),
            "name": self.name,
            "email": self.email,
            "phone": self.phone,
            "company": self.company,
            "note": self.note,
            "modified": self.modified.isoformat(timespec="microseconds").replace("+00:00", "Z"),
        }
