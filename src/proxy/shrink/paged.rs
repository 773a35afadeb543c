//! A list over budget, paged: the first page in the server's order with a signed cursor, the
//! largest page that fits, and a condition the model can copy to filter the rest.

use serde_json::{Map, Value, json};

use crate::proxy::result;
use crate::reshape::cursor;
use crate::reshape::paginate::{self, Pager, Request};

use super::{Context, HOWTO_RESERVE, Outcome};

/// Page 1 of `located`, when it is longer than a page and that page fits.
pub(super) fn first_page(
    located: &paginate::Located<'_>,
    tool: &str,
    reference: &str,
    cx: &Context<'_>,
    budget: u64,
) -> Option<(Outcome, Value)> {
    let c = cx.config;
    let page_size = c
        .endpoints
        .get(tool)
        .and_then(|e| e.page_size)
        .unwrap_or(c.default_page_size) as usize;
    if located.len() <= page_size {
        return None;
    }
    let mut page = page_of(
        located,
        reference,
        None,
        page_size,
        cx,
        (budget, Map::new()),
        None,
    )
    .ok()
    .flatten()?;
    // Records to find rather than page through: say how, with a field they have.
    let example = example_condition(&located.item(0));
    result::append_to_last_text(
        &mut page,
        &format!(
            " To find records: {}; figures without them: {}.",
            result::call(cx.more_tool, &json!({"ref": reference, "where": example})),
            result::call(
                cx.more_tool,
                &json!({"ref": reference, "aggregate": "count", "group_by": example.split('=').next().unwrap_or("status")})
            )
        ),
    );
    Some((Outcome::Paginated, page))
}

/// A condition records could be asked with: a field that names a state or a kind (`status`,
/// `type`, ...) if the record has one, else its first short text field, with its value.
pub(super) fn example_condition(record: &Value) -> String {
    let Value::Object(m) = record else {
        return "FIELD=VALUE".into();
    };
    let short = |v: &Value| {
        v.as_str()
            .filter(|s| s.len() <= 40 && !s.contains(' '))
            .map(str::to_owned)
    };
    ["status", "state", "type", "kind", "level", "category"]
        .iter()
        .find_map(|k| m.get(*k).and_then(short).map(|v| format!("{k}={v}")))
        .or_else(|| {
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "id" | "uuid" | "_id" | "key"))
                .find_map(|(k, v)| short(v).map(|v| format!("{k}={v}")))
        })
        .unwrap_or_else(|| "FIELD=VALUE".into())
}

/// The list a result is made of, when it has one to page: found as `paginate` finds it, but
/// never the result's own content blocks (a text that is not JSON is chunked instead).
///
/// And only when every item fits `budget` on its own (with a fifth to spare for the page
/// around it, and half of it when the item is shown twice, as text and structuredContent): a list of a few huge trees is read as text, in chunks, so no page is ever
/// over budget. An item's JSON is counted only when its bytes could be over: a token is at
/// least a byte.
pub fn pageable<'v>(
    value: &'v Value,
    budget: u64,
    tokenizer: crate::tokens::Tokenizer,
) -> Option<paginate::Located<'v>> {
    // A list in a JSON text is read lazily (memory about its own size); what that does not
    // read (a map of records, say) is located the usual way.
    let located = paginate::locate_lean(value).or_else(|| paginate::locate(value, None).ok())?;
    // A page of a result with structuredContent shows each item twice (text and structured).
    let copies = if value.get("structuredContent").is_some() {
        2
    } else {
        1
    };
    let room = budget * 4 / 5 / copies;
    let counter = tokenizer.counter();
    let fits = |i: usize| {
        // An item's text as sent is at least its JSON's length: short enough, it fits.
        if located.item_text(i).is_some_and(|t| t.len() as u64 <= room) {
            return true;
        }
        let item = located.item(i);
        crate::json::compact::len(&*item) as u64 <= room
            || counter.count(&crate::json::compact::string(&*item)) as u64 <= room
    };
    (located.pointer != "/content" && located.len() > 1 && (0..located.len()).all(fits))
        .then_some(located)
}

/// The budget left for content once the line that says how to read on is paid for.
pub fn inner_budget(budget: u64) -> u64 {
    budget.saturating_sub(HOWTO_RESERVE).max(budget / 2).max(1)
}

/// A page of `located`, the first or the one `issued` points at, as a tool result with the way
/// on. `Ok(None)` when even one item is over the budget; `Err` says why a cursor does not
/// belong to this list.
pub(crate) fn page_of(
    located: &paginate::Located<'_>,
    reference: &str,
    fields: Option<&str>,
    page_size: usize,
    cx: &Context<'_>,
    (budget, tags): (u64, Map<String, Value>),
    issued: Option<&cursor::Decoded>,
) -> Result<Option<Value>, String> {
    let c = cx.config;
    let request = Request {
        limit: issued.is_none().then_some(page_size),
        input_order: true,
        ..Request::default()
    };
    let mut pager = Pager::new(located, &request, issued, c.max_page_size as usize)
        .map_err(|e| e.to_string())?;
    pager.tags.insert("ref".into(), reference.into());
    if let Some(f) = fields {
        pager.tags.insert("fields".into(), f.into());
    }
    pager.tags.extend(tags);
    let offset = match issued {
        Some(d) => pager.resume(d).map_err(|e| e.to_string())?,
        None => 0,
    };
    let shown = |output: &Value| result::tokens(output, c, budget);
    let page = pager.page_within_by(offset, budget, &shown, cx.now, cx.secrets);
    if page.meta.budget_exceeded == Some(true) {
        return Ok(None);
    }
    let mut out = if page.output.get("content").is_some() {
        page.output
    } else {
        result::text(page.output.to_string())
    };
    let mut shown = format!(
        "Items {}-{} of {}",
        offset + usize::from(page.count > 0),
        offset + page.count,
        pager.total()
    );
    if let Some(what) = located.read_from() {
        shown.push_str(&format!(
            " (records read from its text, {what}, shown as JSON)"
        ));
    }
    let line = match &page.next_cursor {
        Some(_) => format!(
            "[mcpguard] {shown}. The next page: {} (the nextCursor above). All of it: {reference}.",
            result::call(cx.more_tool, &json!({"cursor": "<nextCursor>"}))
        ),
        None => format!("[mcpguard] {shown}: the last page."),
    };
    result::push_text(&mut out, line);
    if let Some(next) = page.next_cursor {
        out["nextCursor"] = next.into();
    }
    Ok(Some(out))
}
