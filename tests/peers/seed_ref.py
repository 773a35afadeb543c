# Copied unchanged (below this line) from shared/peers/seed_ref.py: the seed's reference code, an interop partner for tests.
"""The seeds' own reference algorithms, transcribed as yardsticks for side-by-side runs.

Sources: 001_aa80ed2a825719d8.txt (R001 estimate_tokens, R002 cursor codec, R003 project_fields /
summarize_text) and 003_f7c945f3eb2faab1.txt (truncateResponse limits), ported to Python.
Usage: python3 seed_ref.py estimate FILE | encode OFFSET TS SECRET | decode CURSOR SECRET | truncate FILE
"""
import base64, hmac, json, sys
from hashlib import sha256


def estimate_tokens(text: str) -> int:
    base = len(text) // 4
    return base + int(base * 0.20)


def encode_cursor(offset: int, timestamp: float, secret: str, order=None) -> str:
    payload = {"offset": offset, "ts": timestamp}
    if order is not None:
        payload["order"] = order
    payload_json = json.dumps(payload)
    sig = hmac.new(secret.encode(), payload_json.encode(), sha256).hexdigest()
    return base64.urlsafe_b64encode(json.dumps({"payload": payload, "sig": sig}).encode()).decode()


def decode_cursor(cursor: str, secret: str) -> dict:
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode()).decode())
        payload, sig = data["payload"], data["sig"]
        expected = hmac.new(secret.encode(), json.dumps(payload).encode(), sha256).hexdigest()
        if not hmac.compare_digest(expected, sig):
            raise ValueError("Invalid cursor signature")
        return payload
    except Exception as e:
        raise ValueError(f"Malformed cursor: {e}")


LIMITS = dict(maxBytes=10240, maxArrayItems=10, maxStringLength=500, maxJsonDepth=4)


def truncate(data, depth=0, L=LIMITS):
    if depth > L["maxJsonDepth"]:
        return "[truncated]"
    if isinstance(data, list):
        t = [truncate(x, depth + 1) for x in data[: L["maxArrayItems"]]]
        if len(data) > L["maxArrayItems"]:
            return {"items": t, "totalCount": len(data), "showing": L["maxArrayItems"]}
        return t
    if isinstance(data, str) and len(data) > L["maxStringLength"]:
        return data[: L["maxStringLength"]] + "..."
    if isinstance(data, dict):
        return {k: truncate(v, depth + 1) for k, v in data.items()}
    return data


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "estimate":
        text = open(sys.argv[2], encoding="utf-8").read()
        print(estimate_tokens(text))
    elif cmd == "encode":
        print(encode_cursor(int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]))
    elif cmd == "decode":
        print(json.dumps(decode_cursor(sys.argv[2], sys.argv[3])))
    elif cmd == "truncate":
        data = json.load(open(sys.argv[2], encoding="utf-8"))
        print(json.dumps(truncate(data), separators=(",", ":")))
