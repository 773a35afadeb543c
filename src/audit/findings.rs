//! What one document's rules look at ([`Input`]) and where their findings go ([`Out`], which
//! applies the config's severities). Apart from the rules themselves so that every file of
//! rules ([`super::rules`], [`super::protocol`]) looks down at it, none at another.

use super::transcript::Call;
use super::{Context, Finding, Savings};
use crate::contract::Limits;
use crate::contract::RuleId;
use crate::document::Anatomy;
use crate::json::node::Node;
use crate::measure::estimate::DocumentEstimate;

/// What one document's rules look at, on either tree.
pub(super) struct Input<'a, N: Node + Clone> {
    /// How reports name the document.
    pub name: &'a str,
    /// The whole message.
    pub tree: &'a N,
    pub anatomy: &'a Anatomy<'a, N>,
    pub estimate: &'a DocumentEstimate,
    pub tool: &'a str,
    pub limits: &'a Limits,
    /// The request this document answers, when a transcript or a live session pairs it.
    pub call: &'a Call,
}

/// Collects findings, applying the config's severity (or dropping a rule turned off).
pub(super) struct Out<'a, N: Node + Clone> {
    pub ctx: &'a Context,
    pub input: &'a Input<'a, N>,
    findings: Vec<Finding>,
}

impl<N: Node + Clone> Out<'_, N> {
    pub fn add(&mut self, id: RuleId, at: &str, message: String, help: String, bytes: Option<u64>) {
        self.add_before(self.len(), id, at, message, help, bytes);
    }

    /// Adds a finding before the one at `index` (the next one's place, [`Out::len`], is the
    /// end): a rule that can judge a value only once it has walked inside it still reports
    /// the value before what it found inside.
    pub fn add_before(
        &mut self,
        index: usize,
        id: RuleId,
        at: &str,
        message: String,
        help: String,
        bytes: Option<u64>,
    ) {
        let Some(severity) = self.ctx.severity(id, self.input.tool) else {
            return;
        };
        let rule = id.rule();
        let savings = bytes.map(|b| Savings {
            bytes: b,
            tokens: self.tokens_for(b),
        });
        self.findings.insert(
            index,
            Finding {
                code: rule.code,
                rule: rule.name,
                severity,
                document: self.input.name.to_owned(),
                tool: Some(self.input.tool.to_owned()),
                pointer: at.to_owned(),
                message,
                help,
                savings,
                line: None,
                column: None,
            },
        );
    }

    /// Tokens that `bytes` of this document cost, in proportion.
    fn tokens_for(&self, bytes: u64) -> u64 {
        let e = self.input.estimate;
        let base = e.visible_bytes.max(1);
        (e.tokens as u128 * bytes.min(base) as u128 / base as u128) as u64
    }
}

impl<'a, N: Node + Clone> Out<'a, N> {
    pub fn new(input: &'a Input<'a, N>, ctx: &'a Context) -> Out<'a, N> {
        Out {
            ctx,
            input,
            findings: Vec::new(),
        }
    }

    pub fn into_findings(self) -> Vec<Finding> {
        self.findings
    }

    /// How many findings there are so far: where the next rule's start.
    pub fn len(&self) -> usize {
        self.findings.len()
    }

    /// Adds again the findings in `from` that `keep` keeps, each at the pointer `at` makes of
    /// its own: what a rule would find in a second copy of the same value.
    pub fn repeat(
        &mut self,
        from: std::ops::Range<usize>,
        keep: impl Fn(&Finding) -> bool,
        at: impl Fn(&str) -> String,
    ) {
        for i in from {
            if keep(&self.findings[i]) {
                let f = Finding {
                    pointer: at(&self.findings[i].pointer),
                    ..self.findings[i].clone()
                };
                self.findings.push(f);
            }
        }
    }
}
