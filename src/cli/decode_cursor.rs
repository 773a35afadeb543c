//! `mcpguard decode-cursor`: what a cursor carries, and whether it still holds.

use std::io::{Read as _, Write};
use std::path::PathBuf;

use anyhow::Context as _;
use serde::Serialize;
use serde_json::Value;

use mcpguard::reshape::cursor::{self, Payload, Verdict};
use mcpguard::reshape::paginate;

use super::exit::Code;
use super::{ReportFormat, render};

const AFTER_HELP: &str = "\
Shows the payload (offset, issue time, order, filters, and mcpguard's kind, limit and data
fingerprint), when the cursor was issued and when it expires, fields it does not know, and a
verdict: valid, unverified (no secret given: \"signature not checked\"), malformed,
bad-signature (changed, or signed with another secret), expired, from-the-future, or
data-changed (with --data).

Exit codes: 0 valid (or unverified); 1 not valid; 2 it could not run.

Examples:
  mcpguard decode-cursor eyJwYXlsb2FkIjogey...
  jq -r .nextCursor page.json | mcpguard decode-cursor - --format json
  mcpguard decode-cursor \"$CURSOR\" --data bookings.json --at 1763712000";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The cursor, or - to read it from stdin.
    #[arg(value_name = "CURSOR")]
    pub cursor: String,

    /// Check the cursor against this data: has the list changed since it was issued?
    #[arg(long, value_name = "FILE")]
    pub data: Option<String>,

    /// JSON pointer of the list in --data (as for paginate).
    #[arg(long, value_name = "POINTER", requires = "data")]
    pub path: Option<String>,

    #[command(flatten)]
    pub signing: super::CursorArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
}

/// The JSON report (contracts/schemas/decode-cursor.schema.json).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    verdict: &'static str,
    /// Why it is not valid, in a sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    signature: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    payload: Option<Payload>,
    #[serde(skip_serializing_if = "Option::is_none")]
    issued: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    age_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires: Option<String>,
    ttl_seconds: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<DataCheck>,
    /// Why paginate would not take this cursor though it decodes (too long).
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DataCheck {
    file: String,
    fingerprint: String,
    matches: Option<bool>,
}

pub fn run(args: Args, config: &Option<PathBuf>) -> anyhow::Result<Code> {
    let effective = super::load_config(config)?;
    let ttl = effective.config.cursor_ttl_seconds;
    let secrets = args.signing.secrets()?;
    let now = args.signing.now();
    let c = &effective.config;
    let text = if args.cursor == "-" {
        // Read no more than the longest cursor shown (and some whitespace): a longer one is
        // refused as too long without the rest of the stream being held.
        let mut s = String::new();
        std::io::stdin()
            .take(cursor::MAX_DEBUG_CURSOR_LEN as u64 + 4096)
            .read_to_string(&mut s)
            .context("cannot read the cursor from stdin")?;
        s
    } else {
        args.cursor.clone()
    };
    let data = match &args.data {
        Some(file) => Some((file.clone(), super::read_one(file, &effective.config)?)),
        None => None,
    };

    let mut report = Report {
        verdict: "malformed",
        reason: None,
        signature: if secrets.is_some() {
            "not checked"
        } else {
            "not checked: no secret"
        },
        payload: None,
        issued: None,
        age_seconds: None,
        expires: None,
        ttl_seconds: ttl,
        data: None,
        warning: None,
    };
    // A debugging tool shows what paginate would refuse unread, and says so.
    let length = text.trim().len();
    let accepted = c.read_limits.cursor_bytes();
    if length > accepted && length <= cursor::MAX_DEBUG_CURSOR_LEN {
        report.warning = Some(format!(
            "this cursor is {length} bytes, over the {accepted} that paginate and chunk accept (readLimits.maxCursorBytes): they refuse it before decoding"
        ));
    }
    let verdict = match cursor::decode_up_to(&text, cursor::MAX_DEBUG_CURSOR_LEN) {
        Err(malformed) => Verdict::Malformed {
            reason: malformed.0,
        },
        Ok(decoded) => {
            let p = &decoded.payload;
            let mut verdict = cursor::check(&decoded, secrets.as_ref(), now, ttl as f64);
            report.signature = match (&secrets, &verdict) {
                (None, _) => "not checked: no secret",
                (Some(_), Verdict::BadSignature) => "bad",
                (Some(_), _) => "valid",
            };
            if p.ts.is_finite() {
                report.issued = Some(cursor::iso_time(p.ts));
                report.age_seconds = Some(round_ms(now - p.ts));
                report.expires = Some(cursor::iso_time(p.ts + ttl as f64));
            }
            if let Some((file, doc)) = data {
                // The fingerprint covers what the cursor's order and filters look at.
                let located = paginate::locate(&doc.value, args.path.as_deref())
                    .with_context(|| format!("--data {file}"))?;
                let order = p.order.as_deref().map(paginate::Order::parse).transpose()?;
                let fp = paginate::fingerprint_of(
                    &located,
                    order.as_ref(),
                    &paginate::issued_filters(p)?,
                );
                let matches = p.fingerprint.as_ref().map(|issued| *issued == fp);
                if matches == Some(false) && verdict.usable() {
                    verdict = Verdict::DataChanged {
                        issued_for: p.fingerprint.clone().unwrap_or_default(),
                        now: fp.clone(),
                    };
                }
                report.data = Some(DataCheck {
                    file,
                    fingerprint: fp,
                    matches,
                });
            }
            report.payload = Some(decoded.payload);
            verdict
        }
    };
    report.verdict = verdict.name();
    report.reason = reason(&verdict);

    if let Some(w) = &report.warning {
        eprintln!("mcpguard: warning: {w}");
    }
    let too_long = report.warning.is_some();
    let mut out = std::io::stdout().lock();
    match args.format {
        ReportFormat::Json => render::write_json(&mut out, &report)?,
        ReportFormat::Table => write_table(&mut out, &report, now)?,
    }
    out.flush()?;
    Ok(if verdict.usable() && !too_long {
        Code::Ok
    } else {
        Code::Findings
    })
}

fn round_ms(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}

fn reason(verdict: &Verdict) -> Option<String> {
    Some(match verdict {
        Verdict::Valid | Verdict::Unverified => return None,
        Verdict::Malformed { reason } => reason.clone(),
        Verdict::BadSignature => {
            "the signature does not match: the cursor was changed, or signed with another secret"
                .into()
        }
        Verdict::Expired {
            age_seconds,
            ttl_seconds,
        } => format!(
            "issued {} ago, valid for {}; start again from the first page",
            cursor::human_span(*age_seconds),
            cursor::human_span(*ttl_seconds)
        ),
        Verdict::FromTheFuture { ahead_seconds } => format!(
            "issued {} in the future; check the clocks",
            cursor::human_span(*ahead_seconds)
        ),
        Verdict::DataChanged { .. } => {
            "data changed since this cursor was issued; re-query from the start".into()
        }
    })
}

fn write_table(out: &mut impl Write, r: &Report, now: f64) -> anyhow::Result<()> {
    let mut rows: Vec<(&str, String)> = vec![("verdict", r.verdict.to_owned())];
    if let Some(reason) = &r.reason {
        rows.push(("reason", reason.clone()));
    }
    rows.push(("signature", r.signature.to_owned()));
    if let Some(w) = &r.warning {
        rows.push(("warning", w.clone()));
    }
    if let Some(p) = &r.payload {
        rows.push(("offset", p.offset.to_string()));
        if let (Some(issued), Some(age)) = (&r.issued, r.age_seconds) {
            let when = if age >= 0.0 {
                format!("{} ago", cursor::human_span(age))
            } else {
                format!("in {}", cursor::human_span(-age))
            };
            rows.push(("issued", format!("{issued} ({when})")));
        }
        if let Some(expires) = &r.expires {
            let left = p.ts + r.ttl_seconds as f64 - now;
            let when = if left >= 0.0 {
                format!("in {}", cursor::human_span(left))
            } else {
                format!("{} ago", cursor::human_span(-left))
            };
            rows.push((
                "expires",
                format!("{expires} ({when}; ttl {} s)", r.ttl_seconds),
            ));
        }
        rows.push((
            "order",
            p.order.clone().unwrap_or_else(|| "input order".into()),
        ));
        if let Some(f) = &p.filters {
            let list: Vec<String> = f.iter().map(|(k, v)| format!("{k}={v}")).collect();
            rows.push(("filters", list.join(", ")));
        }
        if let Some(kind) = &p.kind {
            rows.push(("kind", kind.clone()));
        }
        if let Some(limit) = p.limit {
            rows.push(("limit", limit.to_string()));
        }
        if let Some(fp) = &p.fingerprint {
            rows.push(("data fingerprint", fp.clone()));
        }
        for (k, v) in &p.unknown {
            let shown = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            rows.push(("unknown field", format!("{k} = {shown}")));
        }
    }
    if let Some(d) = &r.data {
        let state = match d.matches {
            Some(true) => "matches the cursor",
            Some(false) => "differs from the cursor: data changed",
            None => "not compared: the cursor carries no fingerprint",
        };
        rows.push(("data", format!("{} {} ({state})", d.file, d.fingerprint)));
    }
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in rows {
        writeln!(out, "{k:<width$}  {v}")?;
    }
    Ok(())
}
