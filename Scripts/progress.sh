# Sourced by demo.sh and install.sh. report_progress PID LOG STARTED — while PID runs, every 10
# seconds prints the time since STARTED ($SECONDS) and the build tool's last "[n/m] …" line in
# LOG (or "working"): a long build is never silent more than 10 seconds.
report_progress() {
  local pid="$1" log="$2" started="$3" next=$((SECONDS + 10)) latest
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if ((SECONDS >= next)); then
      latest="$(tr '\r' '\n' <"$log" | grep -o '^\[[0-9]*/[0-9]*\] .*' | tail -1 | cut -c1-72 || true)"
      printf '  %4ds  %s\n' "$((SECONDS - started))" "${latest:-working}"
      next=$((SECONDS + 10))
    fi
  done
}
