//! Speed of cursors and paging (the cursor issue's targets):
//! - cursor encode + verify <= 10 µs
//! - the first page of a 100,000-item file costs at most the parse plus 5 ms
//! - paging through a list is linear in total: every page of 100,000 items costs about ten
//!   times every page of 10,000
//!
//! Run: cargo bench --bench cursor

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use mcpguard::reshape::cursor::{self, Payload, Secrets};
use mcpguard::reshape::paginate::{self, Pager, Request};
use serde_json::{Value, json};

const NOW: f64 = 1_763_712_000.0;

/// `n` bookings shaped like tests/fixtures/bookings-500.json, createdAt in shuffled order.
fn bookings(n: usize) -> String {
    let items: Vec<Value> = (0..n)
        .map(|i| {
            let t = (i as u64).wrapping_mul(2_654_435_761) % 7_776_000;
            let status = ["confirmed", "pending", "cancelled"][i % 3];
            json!({
                "id": format!("bk_{i:06}"),
                "guestName": "Zoë Kowalczyk",
                "status": status,
                "checkInDate": "2027-01-08",
                "nights": 1 + i % 14,
                "totalPrice": {"amount": 100 + i % 900, "currency": "EUR"},
                "createdAt": format!("2026-{:02}-{:02}T{:02}:{:02}:{:02}Z", 8 + t / 2_592_000, 1 + (t / 86_400) % 28, (t / 3600) % 24, (t / 60) % 60, t % 60),
            })
        })
        .collect();
    json!({"bookings": items, "total": n}).to_string()
}

fn codec(c: &mut Criterion) {
    let secrets = Secrets::parse("a-long-enough-secret-for-hmac-sha256", "bench").unwrap();
    let mut payload = Payload::new(150, NOW);
    payload.order = Some("createdAt:desc".into());
    payload.kind = Some("page".into());
    payload.limit = Some(50);
    payload.fingerprint = Some("af7b840058c3b026".into());
    c.bench_function("cursor/encode+decode+verify", |b| {
        b.iter(|| {
            let c = cursor::encode(black_box(&payload), &secrets);
            let d = cursor::decode(&c).unwrap();
            cursor::check(&d, Some(&secrets), NOW + 1.0, 600.0)
        })
    });
}

fn first_page(c: &mut Criterion) {
    let secrets = Secrets::parse("bench-secret", "bench").unwrap();
    let text = bookings(100_000);
    let mut g = c.benchmark_group("paginate/100k");
    g.sample_size(10);
    g.bench_function("parse only", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&text)).unwrap())
    });
    let request = Request {
        limit: Some(50),
        ..Request::default()
    };
    g.bench_function(
        "first page after parse (locate, fingerprint, sort, page)",
        |b| {
            // By reference: dropping the parsed document is not part of making a page.
            b.iter_batched_ref(
                || serde_json::from_str::<Value>(&text).unwrap(),
                |doc| {
                    let located = paginate::locate(doc, None).unwrap();
                    let pager = Pager::new(&located, &request, None, 200).unwrap();
                    pager.page(0, pager.limit, NOW, &secrets, None).output
                },
                BatchSize::LargeInput,
            )
        },
    );
    g.finish();
}

fn all_pages(c: &mut Criterion) {
    let secrets = Secrets::parse("bench-secret", "bench").unwrap();
    let mut g = c.benchmark_group("paginate/all pages of 50");
    g.sample_size(10);
    for n in [10_000usize, 100_000] {
        let doc: Value = serde_json::from_str(&bookings(n)).unwrap();
        let request = Request {
            limit: Some(50),
            ..Request::default()
        };
        g.bench_function(format!("{n} items"), |b| {
            b.iter(|| {
                let located = paginate::locate(&doc, None).unwrap();
                let pager = Pager::new(&located, &request, None, 200).unwrap();
                let (mut offset, mut pages) = (0, 0);
                loop {
                    let page = pager.page(offset, pager.limit, NOW, &secrets, None);
                    pages += 1;
                    offset += page.count;
                    if page.next_cursor.is_none() {
                        break pages;
                    }
                }
            })
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! { name = benches; config = config(); targets = codec, first_page, all_pages }
criterion_main!(benches);
