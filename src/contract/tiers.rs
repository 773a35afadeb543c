//! Seed 004's tier budgets and a catalog's plan against them: what a client of the tiered
//! gateway loads at start (T0), then with the category overview (T1), one category's
//! summaries (T2) and the full definitions of the tools it is about to call (T3), each total
//! by the exact Claude count. The plan is made by the proxy's tiers and shown by the audit.

use serde::Serialize;

/// Seed 004's budgets, each the top of its range and a running total: T0 1,500-2,000;
/// T1 3,000-4,000 in all; T2 6,000-8,000; T3 10,000-12,000.
pub const BUDGETS: [(&str, u64); 4] = [("T0", 2_000), ("T1", 4_000), ("T2", 8_000), ("T3", 12_000)];

/// One tier of a plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tier {
    /// `T0` .. `T3`.
    pub tier: &'static str,
    /// What a client holds at this tier, in words.
    pub holds: String,
    /// The tokens this tier adds.
    pub added: u64,
    /// The running total, and its budget.
    pub tokens: u64,
    pub budget: u64,
}

impl Tier {
    pub fn within(&self) -> bool {
        self.tokens <= self.budget
    }
}

/// A catalog's tiers, against what listing it whole costs.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TierPlan {
    pub servers: usize,
    pub tools: usize,
    /// Every tool listed whole, as one tools/list.
    pub full_tokens: u64,
    pub tiers: Vec<Tier>,
}
