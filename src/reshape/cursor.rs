//! Signed cursors, byte-compatible with the seed's reference codec (DESIGN.md section 4).
//!
//! A cursor is the urlsafe base64 (padded) of `{"payload": P, "sig": "<hex>"}` written as
//! Python's `json.dumps` writes it, where `sig` is the lowercase hex HMAC-SHA256 of P's exact
//! bytes. mcpguard writes P with [`crate::json::python`], so the seed's Python server, which re-dumps
//! the parsed payload before checking, computes the same bytes; and it verifies a cursor against
//! the raw bytes of P as they stand inside it (never a re-serialisation), so any cursor the seed
//! makes verifies here too.
//!
//! Checks happen in a fixed order, cheapest and least trusting first: size (before decoding),
//! base64, UTF-8, JSON shape, signature (constant time, every secret of a rotation), payload
//! sanity, then time (expired, from the future). Whether the data behind a cursor changed is the
//! caller's to check with [`Payload::fingerprint`], since only it has the data.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE;
use hmac::{Hmac, KeyInit, Mac};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::Sha256;

use crate::json::python;

type HmacSha256 = Hmac<Sha256>;

/// Cursors longer than this are refused before any decoding: the read limit's default
/// (`readLimits.maxCursorBytes`), which every reader of a cursor takes from the config.
pub const MAX_CURSOR_LEN: usize = crate::config::DEFAULT_MAX_CURSOR_BYTES;

/// The longest cursor `decode-cursor` (a debugging tool) takes apart, with a warning past
/// [`MAX_CURSOR_LEN`].
pub const MAX_DEBUG_CURSOR_LEN: usize = 64 << 10;

/// How far in the future a cursor's timestamp may be before it is refused (clocks differ).
pub const CLOCK_SKEW_SECONDS: f64 = 60.0;

/// The signing secrets: the first signs, all verify (rotation). Never printed: `Debug` shows
/// only how many there are.
#[derive(Clone)]
pub struct Secrets(Vec<Vec<u8>>);

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secrets({} redacted)", self.0.len())
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SecretError {
    #[error("{origin} holds no secret (every line is empty); put the secret on the first line")]
    Empty { origin: String },
    #[error(
        "{origin} holds {size} bytes, more than the {max} a list of secrets ever needs; is it the right file? (e.g. `openssl rand -hex 32` makes one)"
    )]
    TooLarge {
        origin: String,
        size: usize,
        max: usize,
    },
}

/// The most text the secrets may come in: a few hundred rotated secrets.
pub const MAX_SECRETS_TEXT: usize = 64 << 10;
/// Shorter secrets are taken, with a warning: HMAC's key should be at least as long as its
/// output for full strength, and a guessable one lets anyone forge cursors.
pub const WEAK_SECRET_BYTES: usize = 16;

impl Secrets {
    /// One secret per non-empty line (line ends trimmed, nothing else: spaces are part of a
    /// secret). `origin` names where the text came from, for the error.
    pub fn parse(text: &str, origin: &str) -> Result<Secrets, SecretError> {
        if text.len() > MAX_SECRETS_TEXT {
            return Err(SecretError::TooLarge {
                origin: origin.to_owned(),
                size: text.len(),
                max: MAX_SECRETS_TEXT,
            });
        }
        let secrets: Vec<Vec<u8>> = text
            .lines()
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| !l.is_empty())
            .map(|l| l.as_bytes().to_vec())
            .collect();
        if secrets.is_empty() {
            return Err(SecretError::Empty {
                origin: origin.to_owned(),
            });
        }
        Ok(Secrets(secrets))
    }

    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// What to warn of when a secret is too short to be safe (the lines of `origin`, counted
    /// from 1 among the non-empty ones); `None` when every one is long enough.
    pub fn weakness(&self, origin: &str) -> Option<String> {
        let weak: Vec<String> = (self.0.iter().enumerate())
            .filter(|(_, s)| s.trim_ascii().len() < WEAK_SECRET_BYTES)
            .map(|(i, _)| (i + 1).to_string())
            .collect();
        (!weak.is_empty()).then(|| {
            format!(
                "{origin}: secret {} is shorter than {WEAK_SECRET_BYTES} bytes; anyone who guesses it can forge cursors (make one with `openssl rand -hex 32`)",
                weak.join(", ")
            )
        })
    }

    fn mac(secret: &[u8]) -> HmacSha256 {
        // HMAC takes keys of any length: this cannot fail.
        <HmacSha256 as KeyInit>::new_from_slice(secret).expect("HMAC accepts any key length")
    }

    /// Lowercase hex HMAC-SHA256 of `message` with the signing (first) secret.
    pub fn sign(&self, message: &[u8]) -> String {
        let mut mac = Self::mac(&self.0[0]);
        mac.update(message);
        let bytes = mac.finalize().into_bytes();
        let mut hex = String::with_capacity(64);
        for b in bytes.iter() {
            use std::fmt::Write as _;
            let _ = write!(hex, "{b:02x}");
        }
        hex
    }

    /// The index of the secret that signed `message` with `sig`, compared in constant time.
    pub fn verify(&self, message: &[u8], sig: &[u8; 32]) -> Option<usize> {
        self.0.iter().position(|secret| {
            let mut mac = Self::mac(secret);
            mac.update(message);
            mac.verify_slice(sig).is_ok()
        })
    }
}

/// What a cursor carries. `offset` and `ts` are the seed's; the rest are optional.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Payload {
    /// Position of the first item of the next page (as written: a negative one is reported).
    pub offset: i64,
    /// When the cursor was issued, Unix seconds.
    pub ts: f64,
    /// The sort the cursor is bound to, `field:asc|desc` (the seed's `order`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
    /// The filters the cursor is bound to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filters: Option<BTreeMap<String, String>>,
    /// mcpguard's: `page` or `chunk`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// mcpguard's: the page size the cursor was issued with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// mcpguard's: a fingerprint of the data snapshot (hex), to detect changed data.
    #[serde(rename = "fp", skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// Fields mcpguard does not know, kept in order and shown.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub unknown: Map<String, Value>,
}

impl Payload {
    /// A payload with the seed's two fields.
    pub fn new(offset: u64, ts: f64) -> Payload {
        Payload {
            offset: offset as i64,
            ts,
            order: None,
            filters: None,
            kind: None,
            limit: None,
            fingerprint: None,
            unknown: Map::new(),
        }
    }

    /// The payload as an ordered JSON object: the seed's keys first, in the seed's order.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("offset".into(), Value::from(self.offset));
        m.insert("ts".into(), Value::from(self.ts));
        if let Some(order) = &self.order {
            m.insert("order".into(), Value::from(order.as_str()));
        }
        if let Some(filters) = &self.filters {
            let f: Map<String, Value> = filters
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
                .collect();
            m.insert("filters".into(), Value::Object(f));
        }
        if let Some(kind) = &self.kind {
            m.insert("kind".into(), Value::from(kind.as_str()));
        }
        if let Some(limit) = self.limit {
            m.insert("limit".into(), Value::from(limit));
        }
        if let Some(fp) = &self.fingerprint {
            m.insert("fp".into(), Value::from(fp.as_str()));
        }
        for (k, v) in &self.unknown {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }

    fn from_value(value: Value) -> Result<Payload, String> {
        let Value::Object(mut m) = value else {
            return Err(format!(
                "payload is {}, not an object",
                crate::util::human::type_name(&value)
            ));
        };
        let offset = match m.remove("offset") {
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => n
                .as_i64()
                .ok_or_else(|| format!("offset {n} is too large"))?,
            Some(other) => return Err(format!("offset is {other}, not a whole number")),
            None => return Err("payload has no offset".into()),
        };
        let ts = match m.remove("ts") {
            Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
            Some(other) => return Err(format!("ts is {other}, not a number of seconds")),
            None => return Err("payload has no ts (issue time)".into()),
        };
        let text = |m: &mut Map<String, Value>, key: &str| -> Result<Option<String>, String> {
            match m.remove(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(other) => Err(format!("{key} is {other}, not a string")),
            }
        };
        let order = text(&mut m, "order")?;
        let kind = text(&mut m, "kind")?;
        let fingerprint = text(&mut m, "fp")?;
        let limit = match m.remove("limit") {
            None | Some(Value::Null) => None,
            // No page holds nothing: paginate refuses it, so the cursor cannot be valid.
            Some(Value::Number(n)) if n.as_u64() == Some(0) => {
                return Err("limit is 0; a page holds at least one item".into());
            }
            Some(Value::Number(n)) if n.is_u64() => n.as_u64(),
            Some(other) => return Err(format!("limit is {other}, not a whole number")),
        };
        let filters = match m.remove("filters") {
            None | Some(Value::Null) => None,
            Some(Value::Object(f)) => Some(
                f.into_iter()
                    .map(|(k, v)| match v {
                        Value::String(s) => Ok((k, s)),
                        other => Ok((k, other.to_string())),
                    })
                    .collect::<Result<BTreeMap<_, _>, String>>()?,
            ),
            Some(other) => return Err(format!("filters is {other}, not an object")),
        };
        Ok(Payload {
            offset,
            ts,
            order,
            filters,
            kind,
            limit,
            fingerprint,
            unknown: m,
        })
    }
}

/// Signs `payload` into a cursor.
pub fn encode(payload: &Payload, secrets: &Secrets) -> String {
    let p = python::dumps(&payload.to_value());
    let sig = secrets.sign(p.as_bytes());
    URL_SAFE.encode(envelope_text(&p, &sig))
}

/// `json.dumps({"payload": payload, "sig": sig})` around a payload's JSON text: the same
/// separators, and the hex is ASCII.
fn envelope_text(payload: &str, sig: &str) -> String {
    format!("{{\"payload\": {payload}, \"sig\": \"{sig}\"}}")
}

/// A cursor taken apart, not yet trusted.
#[derive(Clone, Debug)]
pub struct Decoded {
    pub payload: Payload,
    /// The payload's JSON exactly as it stands inside the cursor: what the signature covers.
    pub payload_text: String,
    pub sig: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<'a> {
    #[serde(borrow)]
    payload: &'a RawValue,
    sig: String,
}

/// Why a cursor could not even be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("malformed cursor: {0}")]
pub struct Malformed(pub String);

/// Takes a cursor apart without trusting it. Surrounding whitespace is ignored; a cursor
/// over [`MAX_CURSOR_LEN`] bytes is refused before any decoding.
pub fn decode(cursor: &str) -> Result<Decoded, Malformed> {
    decode_up_to(cursor, MAX_CURSOR_LEN)
}

/// [`decode`] with another length limit (`decode-cursor` shows cursors up to
/// [`MAX_DEBUG_CURSOR_LEN`]).
pub fn decode_up_to(cursor: &str, max_len: usize) -> Result<Decoded, Malformed> {
    let cursor = cursor.trim();
    if cursor.is_empty() {
        return Err(Malformed("the cursor is empty".into()));
    }
    if cursor.len() > max_len {
        return Err(Malformed(format!(
            "{} bytes is over the {max_len}-byte limit; not decoded",
            cursor.len()
        )));
    }
    let bytes = URL_SAFE
        .decode(cursor)
        .map_err(|e| Malformed(format!("not urlsafe base64 ({e})")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Malformed("the base64 does not decode to UTF-8 text".into()))?;
    let envelope: Envelope = serde_json::from_str(&text).map_err(|e| {
        Malformed(format!(
            "the decoded text is not {{\"payload\": ..., \"sig\": ...}} JSON ({e})"
        ))
    })?;
    // The signature covers the payload's bytes only, so the envelope around them must be the
    // one form the seed and mcpguard write; any other spelling (whitespace, escapes, a byte
    // after the JSON) would be a changed cursor that still verifies.
    if text != envelope_text(envelope.payload.get(), &envelope.sig) {
        return Err(Malformed(
            "the decoded text is not written as the seed writes cursors ({\"payload\": P, \"sig\": \"HEX\"}, json.dumps spacing, nothing around it); the signature covers only P, so no other form is accepted".into(),
        ));
    }
    let payload_text = envelope.payload.get().to_owned();
    let value: Value = serde_json::from_str(&payload_text)
        .map_err(|e| Malformed(format!("payload is not JSON ({e})")))?;
    let payload = Payload::from_value(value).map_err(Malformed)?;
    Ok(Decoded {
        payload,
        payload_text,
        sig: envelope.sig,
    })
}

/// The outcome of checking a cursor.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Signed by one of the secrets, in date, sane.
    Valid,
    /// Decoded and in date, but no secret was given to check the signature.
    Unverified,
    Malformed {
        reason: String,
    },
    /// Tampered with, or signed with another secret.
    BadSignature,
    Expired {
        age_seconds: f64,
        ttl_seconds: f64,
    },
    FromTheFuture {
        ahead_seconds: f64,
    },
    /// The data the cursor was issued for is not the data now.
    DataChanged {
        issued_for: String,
        now: String,
    },
}

impl Verdict {
    /// True when the cursor may be used.
    pub fn usable(&self) -> bool {
        matches!(self, Verdict::Valid | Verdict::Unverified)
    }

    /// Why a cursor cannot be used, and what to do, in one sentence. `issued` is its `ts`.
    pub fn explain(&self, issued: f64) -> String {
        match self {
            Verdict::Valid | Verdict::Unverified => "the cursor is valid".to_owned(),
            Verdict::BadSignature => "cursor signature does not verify: it was changed, or signed with another secret; start again without --cursor".to_owned(),
            Verdict::Expired { age_seconds, ttl_seconds } => format!(
                "cursor expired: issued {} ({} ago) and valid for {} (cursorTtlSeconds); start again from the beginning (run without --cursor)",
                iso_time(issued),
                human_span(*age_seconds),
                human_span(*ttl_seconds)
            ),
            Verdict::FromTheFuture { ahead_seconds } => format!(
                "cursor is dated {} in the future; check this machine's clock, or start again without --cursor",
                human_span(*ahead_seconds)
            ),
            Verdict::Malformed { reason } => format!("malformed cursor: {reason}"),
            Verdict::DataChanged { .. } => {
                "data changed since this cursor was issued; re-query from the start (run without --cursor)".to_owned()
            }
        }
    }

    /// A kebab-case name: valid, bad-signature, expired, ...
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Valid => "valid",
            Verdict::Unverified => "unverified",
            Verdict::Malformed { .. } => "malformed",
            Verdict::BadSignature => "bad-signature",
            Verdict::Expired { .. } => "expired",
            Verdict::FromTheFuture { .. } => "from-the-future",
            Verdict::DataChanged { .. } => "data-changed",
        }
    }
}

/// Checks signature, payload sanity and time, in that order. `now` and `ttl` in seconds.
pub fn check(decoded: &Decoded, secrets: Option<&Secrets>, now: f64, ttl: f64) -> Verdict {
    let signed = match secrets {
        Some(secrets) => {
            let Some(sig) = parse_hex_sig(&decoded.sig) else {
                return Verdict::BadSignature;
            };
            if secrets
                .verify(decoded.payload_text.as_bytes(), &sig)
                .is_none()
            {
                return Verdict::BadSignature;
            }
            true
        }
        None => false,
    };
    let p = &decoded.payload;
    if p.offset < 0 {
        return Verdict::Malformed {
            reason: format!("offset {} is negative", p.offset),
        };
    }
    if !p.ts.is_finite() || p.ts < 0.0 {
        return Verdict::Malformed {
            reason: format!("issue time ts {} is not a time", p.ts),
        };
    }
    if p.ts - now > CLOCK_SKEW_SECONDS {
        return Verdict::FromTheFuture {
            ahead_seconds: p.ts - now,
        };
    }
    if now - p.ts > ttl {
        return Verdict::Expired {
            age_seconds: now - p.ts,
            ttl_seconds: ttl,
        };
    }
    if signed {
        Verdict::Valid
    } else {
        Verdict::Unverified
    }
}

/// 64 lowercase hex digits, as Python's `hexdigest()` writes them.
fn parse_hex_sig(sig: &str) -> Option<[u8; 32]> {
    let bytes = sig.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        out[i] = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(out)
}

/// Now, in Unix seconds.
pub fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// A Unix time as RFC 3339 in UTC (`2026-11-21T09:00:00Z`, milliseconds when it has them).
pub fn iso_time(ts: f64) -> String {
    // Up to 9999-12-31T23:59:59Z, the last time RFC 3339 can write.
    if !(0.0..=253_402_300_799.0).contains(&ts) {
        return format!("{ts} (not a date)");
    }
    let t = UNIX_EPOCH + Duration::from_secs_f64(ts);
    if ts.fract() == 0.0 {
        humantime::format_rfc3339_seconds(t).to_string()
    } else {
        humantime::format_rfc3339_millis(t).to_string()
    }
}

/// A span of seconds for people: `9m 59s`, `2h 5m`.
pub fn human_span(seconds: f64) -> String {
    let whole = seconds.abs().round() as u64;
    humantime::format_duration(Duration::from_secs(whole)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets() -> Secrets {
        Secrets::parse("s3cret\nold-secret\n", "test").unwrap()
    }

    #[test]
    fn round_trip_and_rotation() {
        let mut p = Payload::new(50, 1_763_712_000.0);
        p.order = Some("createdAt:desc".into());
        p.kind = Some("page".into());
        let cursor = encode(&p, &secrets());
        let d = decode(&cursor).unwrap();
        assert_eq!(d.payload, p);
        assert_eq!(
            d.payload_text,
            r#"{"offset": 50, "ts": 1763712000.0, "order": "createdAt:desc", "kind": "page"}"#
        );
        assert_eq!(
            check(&d, Some(&secrets()), 1_763_712_100.0, 600.0),
            Verdict::Valid
        );
        // Signed with the old secret: still verifies while it is in the list.
        let old = Secrets::parse("old-secret", "t").unwrap();
        let d = decode(&encode(&p, &old)).unwrap();
        assert_eq!(
            check(&d, Some(&secrets()), 1_763_712_100.0, 600.0),
            Verdict::Valid
        );
        let other = Secrets::parse("another", "t").unwrap();
        assert_eq!(
            check(&d, Some(&other), 1_763_712_100.0, 600.0),
            Verdict::BadSignature
        );
    }

    #[test]
    fn time_verdicts() {
        let d = decode(&encode(&Payload::new(0, 1000.0), &secrets())).unwrap();
        assert_eq!(
            check(&d, Some(&secrets()), 1601.0, 600.0),
            Verdict::Expired {
                age_seconds: 601.0,
                ttl_seconds: 600.0
            }
        );
        assert_eq!(
            check(&d, Some(&secrets()), 900.0, 600.0),
            Verdict::FromTheFuture {
                ahead_seconds: 100.0
            }
        );
        assert_eq!(check(&d, None, 1100.0, 600.0), Verdict::Unverified);
    }

    #[test]
    fn malformed_inputs() {
        for bad in [
            "",
            "!!!!",
            "eyJwYXlsb2Fk",
            &URL_SAFE.encode("not json"),
            &"A".repeat(5000),
        ] {
            assert!(decode(bad).is_err(), "{bad:.20}");
        }
        assert_eq!(
            decode(&"A".repeat(5000)).unwrap_err().0,
            "5000 bytes is over the 4096-byte limit; not decoded"
        );
        // Signed, but asking for pages of nothing: paginate refuses it, so it is not valid.
        let mut empty = Payload::new(0, 1000.0);
        empty.limit = Some(0);
        let why = decode(&encode(&empty, &secrets())).unwrap_err().0;
        assert!(why.contains("limit is 0"), "{why}");
    }

    #[test]
    fn weak_and_absurd_secrets_are_said_or_refused() {
        let weak = Secrets::parse("a\n \n0123456789abcdef0123", "f").unwrap();
        assert_eq!(
            weak.weakness("f").unwrap(),
            "f: secret 1, 2 is shorter than 16 bytes; anyone who guesses it can forge cursors (make one with `openssl rand -hex 32`)"
        );
        let strong = Secrets::parse("0123456789abcdef0123", "f").unwrap();
        assert!(strong.weakness("f").is_none());
        let nuls = "\0".repeat(MAX_SECRETS_TEXT + 1);
        assert!(matches!(
            Secrets::parse(&nuls, "f"),
            Err(SecretError::TooLarge { .. })
        ));
    }

    #[test]
    fn secrets_are_never_shown() {
        assert_eq!(format!("{:?}", secrets()), "Secrets(2 redacted)");
        assert!(Secrets::parse("\n\r\n", "MCPGUARD_CURSOR_SECRET").is_err());
    }

    #[test]
    fn iso_times() {
        assert_eq!(iso_time(1_763_712_000.0), "2025-11-21T08:00:00Z");
        assert_eq!(iso_time(1_763_712_000.5), "2025-11-21T08:00:00.500Z");
        assert_eq!(human_span(599.6), "10m");
    }
}
