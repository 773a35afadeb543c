//! The documents of a report, in input order: the first held in memory, the rest, once those
//! hold [`HOLD_MAX`] bytes, spilled to a temporary file as JSON lines and read back one at a
//! time whenever an emitter walks them. An audit's memory then stops growing with its corpus
//! (a report keeps ~5 KB a response, more than the JSON it becomes); a corpus that fits stays
//! in memory and pays nothing.
//!
//! The file is deleted when the report is dropped (or, if the process dies, left in the
//! temporary folder under an unmistakable name). When no file can be made, every document is
//! held instead ([`Documents::spill_error`], a warning); a spill that cannot be written or
//! read back ends every walk early and says so in [`Documents::read_error`], which the CLI
//! turns into an error rather than write an output that lacks documents.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, Write};
use std::sync::OnceLock;

use rayon::prelude::*;

use super::DocumentReport;

/// Bytes of documents held in memory before the rest spill: ~3,500 typical responses, a few
/// times the memory the audit itself needs.
pub const HOLD_MAX: usize = 16 << 20;

/// Spilled documents read back at once by a walk: enough to parse on every core, few enough
/// to hold.
const READ_BATCH: usize = 256;

/// A report's documents.
#[derive(Debug)]
pub struct Documents {
    held: Vec<DocumentReport>,
    held_bytes: usize,
    hold_max: usize,
    spill: Option<Spill>,
    /// Why no file could be made (all are held), or a spill could not be written or read back
    /// (walks end early).
    failed: OnceLock<Failure>,
}

/// What went wrong with the spill, said once.
#[derive(Debug)]
enum Failure {
    /// No file could be made: every document is held (a warning).
    NoFile(String),
    /// Documents that went to the file cannot all be read back (an error).
    Lost(String),
}

#[derive(Debug)]
struct Spill {
    writer: BufWriter<tempfile::NamedTempFile>,
    /// Where each document's line starts.
    starts: Vec<u64>,
    /// Where the next one will.
    end: u64,
    len: usize,
    /// Whether everything pushed is in the file (a walk flushes first).
    flushed: bool,
}

impl Default for Documents {
    fn default() -> Self {
        Documents::holding(HOLD_MAX)
    }
}

impl Documents {
    /// No documents yet; past `hold_max` bytes of them, the rest spill (0: every one does).
    pub fn holding(hold_max: usize) -> Documents {
        Documents {
            held: Vec::new(),
            held_bytes: 0,
            hold_max,
            spill: None,
            failed: OnceLock::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.held.len() + self.spilled()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many went to the file.
    pub fn spilled(&self) -> usize {
        self.spill.as_ref().map_or(0, |s| s.len)
    }

    /// The first document.
    pub fn first(&self) -> Option<Cow<'_, DocumentReport>> {
        self.iter().next()
    }

    /// Adds `docs` after the others. (Their lines are written one after another: this runs
    /// under the lock the workers put their files in with, where a parallel loop could pick up
    /// a worker's own job waiting for that lock.)
    pub(super) fn extend(&mut self, docs: Vec<DocumentReport>) {
        for doc in docs {
            match &self.spill {
                None => {
                    let bytes = heap_bytes(&doc);
                    if self.held_bytes + bytes <= self.hold_max || !self.make_spill() {
                        self.held_bytes += bytes;
                        self.held.push(doc);
                    } else {
                        self.write_line(line_of(&doc));
                    }
                }
                // Spilling stopped (a write failed; walks say so): nothing more goes there.
                Some(_) if self.failed.get().is_some() => self.held.push(doc),
                // Spilling: what it would hold no longer counts.
                Some(_) => self.write_line(line_of(&doc)),
            }
        }
    }

    /// Makes the file to spill to, or says why not (the rest are then held in memory: nothing
    /// has gone to a file yet, so nothing is lost or out of order).
    fn make_spill(&mut self) -> bool {
        if self.failed.get().is_some() {
            return false;
        }
        let file = tempfile::Builder::new()
            .prefix("mcpguard-audit-spill-")
            .tempfile();
        match file {
            Ok(file) => {
                self.spill = Some(Spill {
                    writer: BufWriter::with_capacity(1 << 16, file),
                    starts: Vec::new(),
                    end: 0,
                    len: 0,
                    flushed: true,
                });
                true
            }
            Err(e) => {
                let _ = self.failed.set(Failure::NoFile(format!(
                    "cannot make a temporary file for the audit's documents ({e}); they are all held in memory"
                )));
                false
            }
        }
    }

    /// Writes a document's line as the file's next. A write that fails may have lost lines
    /// still in the buffer, so every walk from then on ends with an error rather than without
    /// them.
    fn write_line(&mut self, line: io::Result<Vec<u8>>) {
        let Some(spill) = self.spill.as_mut() else {
            return;
        };
        let written = line.and_then(|line| spill.writer.write_all(&line).map(|()| line.len()));
        match written {
            Ok(len) => {
                spill.starts.push(spill.end);
                spill.end += len as u64;
                spill.len += 1;
                spill.flushed = false;
            }
            Err(e) => self.fail_read(format!("writing them failed: {e}")),
        }
    }

    /// Puts everything pushed into the file, so that a walk reads it all.
    pub(super) fn flush(&mut self) {
        if let Some(spill) = self.spill.as_mut().filter(|s| !s.flushed) {
            match spill.writer.flush() {
                Ok(()) => spill.flushed = true,
                // What the buffer held is lost: a walk would end early.
                Err(e) => self.fail_read(format!("writing the last of them failed: {e}")),
            }
        }
    }

    /// Why no file could be made to spill to: every document was held (a warning: the audit
    /// took more memory).
    pub fn spill_error(&self) -> Option<&str> {
        match self.failed.get()? {
            Failure::NoFile(why) => Some(why),
            Failure::Lost(_) => None,
        }
    }

    /// Why a walk ended early, or may have: an error, the output lacks documents.
    pub fn read_error(&self) -> Option<&str> {
        match self.failed.get()? {
            Failure::Lost(why) => Some(why),
            Failure::NoFile(_) => None,
        }
    }

    /// Every document, in order: those held borrowed, those spilled read back a batch at a
    /// time (each batch parsed on every core) and handed on one at a time.
    pub fn iter(&self) -> Iter<'_> {
        Iter(Box::new(self.batches(READ_BATCH).flatten()))
    }

    /// Every document, in order, in batches of at most `n`: those spilled are read back a batch
    /// at a time and parsed on every core (reading them back is most of a spilled report's
    /// writing).
    pub fn batches(&self, n: usize) -> impl Iterator<Item = Vec<Cow<'_, DocumentReport>>> {
        let n = n.max(1);
        let held = self
            .held
            .chunks(n)
            .map(|c| c.iter().map(Cow::Borrowed).collect());
        let mut spilled = self.open().map(|file| (file, self.spilled()));
        let read = std::iter::from_fn(move || {
            let (reader, left) = spilled.as_mut().filter(|(_, left)| *left > 0)?;
            let take = n.min(*left);
            *left -= take;
            let lines: Vec<_> = (0..take).map(|_| read_line(reader)).collect();
            let parsed: Vec<Option<DocumentReport>> =
                lines.into_par_iter().map(|line| self.parse(line)).collect();
            let whole = parsed.iter().all(Option::is_some);
            if !whole {
                spilled = None;
            }
            let batch: Vec<_> = parsed
                .into_iter()
                .map_while(|d| d.map(Cow::Owned))
                .collect();
            (!batch.is_empty()).then_some(batch)
        });
        held.chain(read)
    }

    /// The documents at `indices` (in the order given; past the end, none).
    pub fn pick<'d>(
        &'d self,
        indices: impl IntoIterator<Item = usize> + 'd,
    ) -> impl Iterator<Item = Cow<'d, DocumentReport>> + 'd {
        let mut file = None;
        indices.into_iter().map_while(move |i| {
            if let Some(doc) = self.held.get(i) {
                return Some(Cow::Borrowed(doc));
            }
            let start = *self.spill.as_ref()?.starts.get(i - self.held.len())?;
            if file.is_none() {
                file = Some(self.open()?);
            }
            let reader = file.as_mut()?;
            let line = match reader.seek(io::SeekFrom::Start(start)) {
                Ok(_) => read_line(reader),
                Err(e) => Err(e.to_string()),
            };
            self.parse(line).map(Cow::Owned)
        })
    }

    /// The spill's file, to read (none when nothing spilled, or it cannot be opened).
    fn open(&self) -> Option<BufReader<File>> {
        let spill = self.spill.as_ref().filter(|s| s.len > 0)?;
        if !spill.flushed {
            self.fail_read("documents were added after the report was finished".into());
            return None;
        }
        match spill.writer.get_ref().reopen() {
            Ok(file) => Some(BufReader::with_capacity(1 << 16, file)),
            Err(e) => {
                self.fail_read(e.to_string());
                None
            }
        }
    }

    /// The document on a line read, or none, why kept.
    fn parse(&self, line: Result<String, String>) -> Option<DocumentReport> {
        line.and_then(|line| serde_json::from_str(&line).map_err(|e| e.to_string()))
            .map_err(|why| self.fail_read(why))
            .ok()
    }

    fn fail_read(&self, why: String) {
        let _ = self.failed.set(Failure::Lost(format!(
            "cannot read back the documents the audit spilled to a temporary file: {why}"
        )));
    }
}

/// As a JSON array of the documents.
impl serde::Serialize for Documents {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'d> IntoIterator for &'d Documents {
    type Item = Cow<'d, DocumentReport>;
    type IntoIter = Iter<'d>;

    fn into_iter(self) -> Iter<'d> {
        self.iter()
    }
}

/// A walk over [`Documents`].
pub struct Iter<'d>(Box<dyn Iterator<Item = Cow<'d, DocumentReport>> + 'd>);

impl<'d> Iterator for Iter<'d> {
    type Item = Cow<'d, DocumentReport>;

    fn next(&mut self) -> Option<Cow<'d, DocumentReport>> {
        self.0.next()
    }
}

/// A document as a line of the spill.
fn line_of(doc: &DocumentReport) -> io::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(doc)?;
    line.push(b'\n');
    Ok(line)
}

/// The next line of the spill, or why there is none.
fn read_line(reader: &mut BufReader<File>) -> Result<String, String> {
    let mut line = String::new();
    match reader.read_line(&mut line) {
        Ok(0) => Err("the file ends early".to_owned()),
        Ok(_) => Ok(line),
        Err(e) => Err(e.to_string()),
    }
}

/// About the bytes `doc` holds on the heap, and its own: what [`HOLD_MAX`] bounds.
fn heap_bytes(doc: &DocumentReport) -> usize {
    let findings: usize = doc
        .findings
        .iter()
        .map(|f| {
            size_of_val(f)
                + f.document.len()
                + f.tool.as_ref().map_or(0, String::len)
                + f.pointer.len()
                + f.message.len()
                + f.help.len()
        })
        .sum();
    let extents = [&doc.longest_array, &doc.longest_string]
        .into_iter()
        .flatten()
        .map(|e| e.pointer.len())
        .sum::<usize>();
    let paths: usize = doc
        .top_paths
        .iter()
        .map(|p| size_of_val(p) + p.path.len())
        .sum();
    let clients: usize = doc.clients.keys().map(|k| 32 + k.len()).sum();
    size_of::<DocumentReport>()
        + doc.name.len()
        + doc.file.len()
        + doc.tool.len()
        + findings
        + extents
        + paths
        + clients
        + doc.notes.iter().map(|n| 24 + n.len()).sum::<usize>()
}
