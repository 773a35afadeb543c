//! The paging workflow `paginate` runs on a list it has located: the cursor checked before any
//! page is cut (decoded under the read limit, then its signature, age and kind), the request
//! completed with the default page size, and pages cut one after another (each the page size,
//! or the largest that fits a token budget), a next cursor never issued longer than a reader
//! takes back.

use crate::reshape::cursor::{self, Secrets};
use crate::tokens::Tokenizer;

use super::{Located, Page, Pager, PaginateError, Request};

/// The settings of a paging session, from the config.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The page size when neither the request nor a cursor says one.
    pub default_page_size: usize,
    /// The largest page size a request may ask for.
    pub max_page_size: usize,
    /// The longest cursor read, and so the longest issued (`readLimits.maxCursorBytes`).
    pub max_cursor_bytes: usize,
    /// How long a cursor stays usable.
    pub cursor_ttl_seconds: f64,
}

/// How a page is sized: a number of items, or the largest that fits a token budget.
#[derive(Clone, Copy, Debug)]
pub enum Size {
    Items,
    Tokens(u64, Tokenizer),
}

/// A list being paged: where the next page starts, and what each page is cut by.
pub struct Session<'l, 'd> {
    pager: Pager<'l, 'd>,
    offset: usize,
    size: Size,
    settings: Settings,
    secrets: &'l Secrets,
    now: f64,
    done: bool,
}

impl<'l, 'd> Session<'l, 'd> {
    /// Starts at the first page, or where `cursor` says. A cursor that does not decode, is
    /// forged, stale or for another request is refused here ([`PaginateError::is_refusal`]),
    /// before any page is cut.
    pub fn start(
        located: &'l Located<'d>,
        request: &Request,
        cursor: Option<&str>,
        size: Size,
        settings: Settings,
        (secrets, now): (&'l Secrets, f64),
    ) -> Result<Session<'l, 'd>, PaginateError> {
        let decoded = match cursor {
            Some(text) => {
                let decoded = cursor::decode_up_to(text, settings.max_cursor_bytes)
                    .map_err(PaginateError::Cursor)?;
                let verdict =
                    cursor::check(&decoded, Some(secrets), now, settings.cursor_ttl_seconds);
                if !verdict.usable() {
                    return Err(PaginateError::Refused(verdict, decoded.payload.ts));
                }
                Some(decoded)
            }
            None => None,
        };
        let request = Request {
            limit: request
                .limit
                .or(decoded.is_none().then_some(settings.default_page_size)),
            ..request.clone()
        };
        let pager = Pager::new(located, &request, decoded.as_ref(), settings.max_page_size)?;
        let offset = match &decoded {
            Some(d) => pager.resume(d)?,
            None => 0,
        };
        Ok(Session {
            pager,
            offset,
            size,
            settings,
            secrets,
            now,
            done: false,
        })
    }

    /// Whether the whole list fits one page as it is (no order, filter or cut asked for), so
    /// the input can go out unchanged (US1.3, FR-034).
    pub fn fits_unchanged(&self) -> bool {
        self.pager.fits_unchanged()
    }

    /// The next page, or `None` after the last. A page whose next cursor would be longer than
    /// a reader takes back is an error, and nothing of it is given out.
    pub fn next_page(&mut self) -> Result<Option<Page>, PaginateError> {
        if self.done {
            return Ok(None);
        }
        let page = match self.size {
            Size::Tokens(tokens, tokenizer) => {
                self.pager
                    .page_within(self.offset, tokens, tokenizer, self.now, self.secrets)
            }
            Size::Items => {
                let limit = self.pager.limit;
                self.pager
                    .page(self.offset, limit, self.now, self.secrets, None)
            }
        };
        if let Some(next) = &page.next_cursor
            && next.len() > self.settings.max_cursor_bytes
        {
            return Err(PaginateError::CursorTooLong {
                len: next.len(),
                max: self.settings.max_cursor_bytes,
            });
        }
        self.offset += page.count;
        self.done = page.next_cursor.is_none();
        Ok(Some(page))
    }
}
