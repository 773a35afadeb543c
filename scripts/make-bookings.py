#!/usr/bin/env python3
"""Prints N realistic bookings as {"bookings": [...], "total": N}, deterministic (fixed seed).
Used for tests/fixtures/bookings-500.json and the paging benchmarks:

    python3 scripts/make-bookings.py 500 > tests/fixtures/bookings-500.json
"""
import json, random, sys
from datetime import datetime, timedelta, timezone

n = int(sys.argv[1])
rng = random.Random(500 + n)
T0 = datetime(2026, 11, 1, 8, 0, tzinfo=timezone.utc)
FIRST = ["Ana", "Zoë", "Marek", "Priya", "Tomás", "Ingrid", "Kenji", "Amara", "Luca", "Olivia"]
LAST = ["Kowalczyk", "Okafor", "Lindqvist", "Hernández", "Nakamura", "Dubois", "Schmidt", "Rossi"]
STATUSES = ["confirmed", "pending", "cancelled", "completed"]
bookings = []
for i in range(n):
    check_in = T0 + timedelta(days=rng.randint(1, 120))
    nights = rng.randint(1, 14)
    base = rng.randint(60, 420)
    bookings.append({
        "id": f"bk_{i:06d}",
        "guestName": f"{rng.choice(FIRST)} {rng.choice(LAST)}",
        "status": rng.choice(STATUSES),
        "checkInDate": check_in.date().isoformat(),
        "nights": nights,
        "totalPrice": {"amount": base * nights + 45, "currency": "EUR"},
        "createdAt": (T0 - timedelta(seconds=rng.randint(1, 90 * 86400))).isoformat().replace("+00:00", "Z"),
    })
print(json.dumps({"bookings": bookings, "total": n}, ensure_ascii=False, indent=1))
