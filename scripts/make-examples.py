#!/usr/bin/env python3
"""Writes the generated half of contracts/examples/ (the other half is copied byte for byte from
real MCP servers' captures). Deterministic: a fixed seed, fixed clocks. Re-run after changing it:

    python3 scripts/make-examples.py contracts/examples

Each file name says what it is: pass-* keeps the size invariants of seed 003; fail-invNNN-* breaks
INV-MCP-RESP-NNN (and possibly others, listed in contracts/examples/README.md).
"""
import base64, json, random, struct, sys, zlib, os
from datetime import datetime, timedelta, timezone

out = sys.argv[1]
rng = random.Random(20261121)
T0 = datetime(2026, 11, 1, 8, 0, tzinfo=timezone.utc)

def wire(obj):  # what the TypeScript and Python SDKs send: compact JSON, UTF-8
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))

def tool_result(id_, text, structured=None, is_error=None):
    result = {"content": [{"type": "text", "text": text}]}
    if structured is not None:
        result["structuredContent"] = structured
    if is_error is not None:
        result["isError"] = is_error
    return {"jsonrpc": "2.0", "id": id_, "result": result}

def write(name, obj=None, text=None):
    data = text if text is not None else wire(obj)
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write(data)

FIRST = ["Ana", "Zoë", "Marek", "Priya", "Tomás", "Ingrid", "Kenji", "Amara", "Luca", "Olivia", "Mateusz", "Chloé"]
LAST = ["Kowalczyk", "Okafor", "Lindqvist", "Hernández", "Nakamura", "Dubois", "Schmidt", "Rossi", "Nowak", "Ferreira"]
CITIES = [("Lisbon", "PT"), ("Kraków", "PL"), ("São Paulo", "BR"), ("Kyoto", "JP"), ("Bergen", "NO"), ("Austin", "US")]
STATUSES = ["confirmed", "pending", "cancelled", "checked_in", "completed"]
NOTES = [
    "Guest asked for a late check-in after 22:00; key box code sent by SMS.",
    "Requested a baby cot and extra towels. Parking spot B12 reserved for the whole stay.",
    "Repeat guest, third stay this year. Prefers the upstairs bedroom facing the garden.",
    "Flight delayed; guest will confirm arrival time on the day. Cleaning scheduled for 11:00.",
    "Allergic to feathers: synthetic pillows and duvet prepared. Airport pickup booked.",
]

def booking(i):
    city, country = rng.choice(CITIES)
    check_in = T0 + timedelta(days=rng.randint(1, 120))
    nights = rng.randint(1, 14)
    base = rng.randint(60, 420)
    created = T0 - timedelta(hours=rng.randint(1, 2000))
    return {
        "id": f"bk_{i:05d}",
        "propertyId": f"prop_{rng.randint(100, 999)}",
        "guestName": f"{rng.choice(FIRST)} {rng.choice(LAST)}",
        "guestEmail": f"guest{i}@example.com",
        "status": rng.choice(STATUSES),
        "checkInDate": check_in.date().isoformat(),
        "checkOutDate": (check_in + timedelta(days=nights)).date().isoformat(),
        "nights": nights,
        "totalPrice": {"amount": base * nights + 45, "currency": "EUR"},
        "priceBreakdown": {"nightly": base, "nights": nights, "cleaningFee": 45, "taxes": round(base * nights * 0.08, 2)},
        "location": {"city": city, "country": country},
        "notes": rng.choice(NOTES),
        "createdAt": created.isoformat().replace("+00:00", "Z"),
    }

# --- passing -----------------------------------------------------------------------------------
page = {
    "summary": "150 bookings for Kraków in November; showing 5 most recent",
    "success": True,
    "count": 150,
    "items": [{"id": f"bk_{i:05d}", "label": f"{rng.choice(FIRST)} {rng.choice(LAST)}, {rng.randint(1, 9)} nights", "severity": rng.choice(["high", "medium", "low"])} for i in range(5)],
    "artifactRef": "ax://bookings/3f2a9c1e",
    "hasMore": True,
    "nextCursor": "eyJwYXlsb2FkIjogeyJvZmZzZXQiOiA1LCAidHMiOiAxNzYzNzEyMDAwLjB9LCAic2lnIjogIjAwIn0=",
}
write("pass-contract-bookings-page.json", tool_result(11, wire(page)))

links = {"jsonrpc": "2.0", "id": 12, "result": {"content": [
    {"type": "text", "text": "Found 3 matching reports. Open one with resources/read."},
    *[{"type": "resource_link", "uri": f"reports://2026/10/{n}.pdf", "name": f"October {n} occupancy report", "mimeType": "application/pdf", "description": f"Occupancy and revenue for {n}"} for n in ["lisbon", "krakow", "kyoto"]],
]}}
write("pass-resource-links.json", links)

write("pass-plain-api-booking.json", text=json.dumps(booking(42), ensure_ascii=False, indent=2) + "\n")

tools = {"jsonrpc": "2.0", "id": 2, "result": {"tools": [
    {"name": "search_bookings", "description": "Search bookings by guest, date range or status. Returns at most 50 per page; pass nextCursor to continue.",
     "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}, "status": {"type": "string", "enum": STATUSES}, "cursor": {"type": "string"}, "limit": {"type": "integer", "default": 50, "maximum": 200}}},
     "annotations": {"readOnlyHint": True}},
    {"name": "get_booking", "description": "Fetch one booking by id. Use fields=priceBreakdown for the price details.",
     "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}, "fields": {"type": "string"}}, "required": ["id"]},
     "annotations": {"readOnlyHint": True}},
    {"name": "cancel_booking", "description": "Cancel a booking. Refunds follow the property's policy.",
     "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}, "reason": {"type": "string"}}, "required": ["id"]},
     "annotations": {"destructiveHint": True}},
]}}
write("pass-tools-list-bookings.json", tools)

# --- failing -----------------------------------------------------------------------------------
# INV-001 (and 002): a 60 KB booking list from a REST API, no paging at all.
bookings = []
while len(json.dumps({"bookings": bookings}, ensure_ascii=False, indent=2)) < 60_000:
    bookings.append(booking(len(bookings)))
write("fail-inv001-bookings-60kb.json", text=json.dumps({"bookings": bookings, "total": len(bookings)}, ensure_ascii=False, indent=2) + "\n")

# INV-003 (and 001): a 2 MB application log returned in one text block.
def log_text(target):
    lines, t, n = [], datetime(2026, 11, 20, 6, 0, tzinfo=timezone.utc), 0
    size = 0
    while size < target:
        t += timedelta(milliseconds=rng.randint(3, 900))
        ts = t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"
        n += 1
        roll = rng.random()
        if roll < 0.03:
            block = [f"{ts} ERROR [http-nio-8080-exec-{rng.randint(1, 40)}] c.a.booking.PaymentService - Payment capture failed for booking bk_{rng.randint(0, 99999):05d}",
                     "java.lang.IllegalStateException: card declined: insufficient_funds",
                     "\tat com.acme.booking.payment.StripeGateway.capture(StripeGateway.java:214)",
                     "\tat com.acme.booking.payment.PaymentService.charge(PaymentService.java:88)",
                     "\tat com.acme.booking.api.BookingController.confirm(BookingController.java:152)",
                     "\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)",
                     "Caused by: com.stripe.exception.CardException: Your card has insufficient funds.",
                     "\tat com.stripe.net.LiveStripeResponseGetter.handleApiError(LiveStripeResponseGetter.java:216)",
                     "\t... 41 more"]
        elif roll < 0.15:
            block = [f"{ts} WARN  [scheduler-{rng.randint(1, 4)}] c.a.booking.sync.ChannelSync - Rate limited by channel manager, retrying in {rng.randint(1, 30)}s (attempt {rng.randint(1, 5)}/5)"]
        else:
            block = [f"{ts} INFO  [http-nio-8080-exec-{rng.randint(1, 40)}] c.a.booking.api.AccessLog - GET /api/v1/bookings?page={rng.randint(1, 40)}&limit=50 200 {rng.randint(4, 380)}ms user=u{rng.randint(1000, 9999)}"]
        for line in block:
            lines.append(line)
            size += len(line) + 1
    return "\n".join(lines) + "\n"
write("fail-inv003-log-2mb-text.json", tool_result(31, log_text(2_000_000)))

# INV-003: a base64 screenshot inlined in the JSON text, next to the useful fields.
def png(width, height):
    raw = b"".join(b"\x00" + bytes(rng.randrange(256) if (x + y) % 7 else 255 for x in range(width * 3)) for y in range(height))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
shot = {"url": "https://staging.example.com/checkout", "status": 200, "title": "Checkout – Step 2 of 3", "viewport": {"width": 1280, "height": 800},
        "screenshot": "data:image/png;base64," + base64.b64encode(png(120, 90)).decode()}
write("fail-inv003-base64-screenshot.json", tool_result(32, wire(shot)))

# INV-001: the same result pretty-printed as text and sent again as structuredContent.
report = {"property": "prop_311", "months": "2026-09..2026-10", "occupancy": 0.87, "nights": [{"date": (T0 + timedelta(days=d - 31)).date().isoformat(), "booked": rng.random() < 0.87, "rate": rng.randint(80, 240), "channel": rng.choice(["direct", "airbnb", "booking.com"])} for d in range(62)], "reviews": [{"guest": f"{rng.choice(FIRST)} {rng.choice(LAST)}", "stars": rng.randint(3, 5), "text": rng.choice(NOTES)} for _ in range(10)]}
write("fail-inv001-pretty-duplicated-structured.json", tool_result(33, json.dumps(report, ensure_ascii=False, indent=2), structured=report))

# INV-004: depth 9 (workflow run with nested step results).
def nest(level):
    if level == 0:
        return {"status": "ok", "durationMs": 12}
    return {"step": f"s{level}", "result": nest(level - 1)}
write("fail-inv004-depth-9.json", tool_result(34, wire({"runId": "run_8842", "steps": [nest(6)]})))
# /steps/0/result x6/durationMs: depth 9 with the root at 0, as seed_audit.py counts

# INV-006: contract-shaped but the summary is a paragraph.
bad_summary = dict(page, summary="Found 150 bookings in Kraków for November 2026 across 12 properties; 40 confirmed, 60 pending, 30 cancelled and 20 completed, sorted by check-in date")
write("fail-inv006-summary-too-long.json", tool_result(35, wire(bad_summary)))

# INV-002: 25 search hits, no hasMore, no cursor.
hits = {"query": "late check-in", "results": [{"id": f"bk_{i:05d}", "guestName": b["guestName"], "status": b["status"], "checkInDate": b["checkInDate"]} for i, b in ((i, booking(i)) for i in range(25))]}
write("fail-inv002-search-25-items.json", tool_result(36, wire(hits)))

# INV-005: a large trace summary with no artifactRef to fetch the rest from.
trace = {"traceId": "tr_5d0e", "status": "failed", "durationMs": 48211, "events": [{"seq": i, "at": (T0 + timedelta(milliseconds=137 * i)).isoformat(), "span": rng.choice(["db.query", "http.call", "cache.get", "queue.publish"]), "ms": rng.randint(1, 900), "ok": rng.random() > 0.05} for i in range(160)]}
write("fail-inv005-trace-no-artifact.json", tool_result(37, wire(trace)))
