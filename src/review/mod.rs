//! Clash review (issue 11): clashes with stable ids and statuses that survive re-checks,
//! ignore rules, and BCF export.
//!
//! A *clash* is a colliding (or too close) pair of a report, identified by the two objects and
//! its class (`volume`, `touch`, `clearance`, …): [`clash_id`]. Its status follows Navisworks'
//! Clash Detective ([`Status`]): a clash first found is `new`; found again it is `active`
//! (or keeps `reviewed`/`approved`, which a planner set); a clash of the previous review that
//! no longer occurs is `resolved`, and becomes `active` if it comes back. [`apply_baseline`]
//! carries statuses, assignees and comments from a previous report (or a saved review) into
//! a new one; [`apply_rules`] moves pairs that touch by design out of the way first.

#[cfg(feature = "bcf")]
pub mod bcf;
pub mod snapshot;

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::report::{Kind, PairReport, Report};

/// Where a clash stands in the review (Navisworks' meanings).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Found for the first time.
    #[default]
    New,
    /// Found before and found again (or found again after it was resolved).
    Active,
    /// Somebody looked at it; still there.
    Reviewed,
    /// Accepted as it is (by design); still there, not a problem.
    Approved,
    /// No longer found.
    Resolved,
}

impl Status {
    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Status::New => "new",
            Status::Active => "active",
            Status::Reviewed => "reviewed",
            Status::Approved => "approved",
            Status::Resolved => "resolved",
        }
    }

    /// The status of a clash found now whose previous status was `before` (`None`: not in
    /// the previous review).
    pub fn found_again(before: Option<Status>) -> Status {
        match before {
            None => Status::New,
            Some(Status::New | Status::Active | Status::Resolved) => Status::Active,
            Some(s @ (Status::Reviewed | Status::Approved)) => s,
        }
    }
}

impl std::str::FromStr for Status {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "new" => Ok(Status::New),
            "active" => Ok(Status::Active),
            "reviewed" => Ok(Status::Reviewed),
            "approved" => Ok(Status::Approved),
            "resolved" => Ok(Status::Resolved),
            _ => Err(format!(
                "unknown clash status '{s}': use new, active, reviewed, approved or resolved"
            )),
        }
    }
}

/// 64-bit FNV-1a: a stable hash (the same on every platform and version, unlike `std`'s).
fn fnv1a(bytes: &[u8], seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The key an object is known by in clash ids: its model identifier (an IFC GlobalId) where
/// it has one, else its group path and name.
pub fn object_key(name: &str, group: Option<&str>, id: Option<&str>) -> String {
    match (id, group) {
        (Some(id), _) => id.to_string(),
        (None, Some(g)) if !name.starts_with(&format!("{g}/")) => format!("{g}/{name}"),
        _ => name.to_string(),
    }
}

/// The stable id of a clash: the two objects (in either order) and the class. The same two
/// parts with the same class get the same id after any move or re-check.
pub fn clash_id(key_a: &str, key_b: &str, class: Kind) -> String {
    let (x, y) = if key_a <= key_b {
        (key_a, key_b)
    } else {
        (key_b, key_a)
    };
    let text = format!("{x}\u{1f}{y}\u{1f}{}", class.name());
    format!("{}-{:016x}", class.name(), fnv1a(text.as_bytes(), 0))
}

/// A UUID (RFC 9562 version 8, name-based) for a clash id: BCF topics and viewpoints need
/// GUIDs, and the same clash exported twice keeps its topic.
pub fn clash_guid(id: &str, salt: &str) -> String {
    let hi = fnv1a(id.as_bytes(), fnv1a(salt.as_bytes(), 1));
    let lo = fnv1a(id.as_bytes(), fnv1a(salt.as_bytes(), 2) ^ hi);
    let hi = (hi & !0xf000) | 0x8000; // version 8
    let lo = (lo & !(0b11 << 62)) | (0b10 << 62); // RFC variant
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xffff,
        hi & 0xffff,
        lo >> 48,
        lo & 0xffff_ffff_ffff
    )
}

/// The clash id of a report pair.
pub fn pair_id(p: &PairReport) -> String {
    clash_id(
        &object_key(&p.a, p.group_a.as_deref(), p.id_a.as_deref()),
        &object_key(&p.b, p.group_b.as_deref(), p.id_b.as_deref()),
        p.kind,
    )
}

/// One ignore rule. Every field given must hold for a pair to be ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IgnoreRule {
    /// Both objects lie inside this group (`cell3/robot` holds `cell3/robot/link_2` and
    /// `cell3/robot/tool/finger`). `*` and `?` match as in file names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
    /// Both objects are parts of the same assembly (the same group).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub same_group: bool,
    /// One object's path (`group/name`) matches this pattern…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    /// …and the other's this one (either way round; absent: any object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
    /// Only clashes of this class (`touch`, `volume`, `clearance`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Kind>,
    /// Why (shown with the ignored pairs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What the review leaves out: ignore rules and a depth tolerance.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rules {
    /// Pairs matching any of these are moved from `pairs` to `ignored`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignore: Vec<IgnoreRule>,
    /// Report only hard clashes deeper than this (scene units): `touch` pairs and `volume`
    /// pairs whose separation (else depth) is at most this are ignored. Clearance pairs stay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_depth: Option<f64>,
}

impl Rules {
    /// Whether there is nothing to apply.
    pub fn is_empty(&self) -> bool {
        self.ignore.is_empty() && self.min_depth.is_none()
    }

    /// Check patterns and numbers, with a message for the user.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(d) = self.min_depth {
            if !(d.is_finite() && d >= 0.0) {
                return Err(format!("min_depth {d}: must be a number ≥ 0"));
            }
        }
        for (k, r) in self.ignore.iter().enumerate() {
            if r.within.is_none() && !r.same_group && r.a.is_none() && r.b.is_none() {
                return Err(format!(
                    "ignore rule {}: give at least one of within, same_group, a, b",
                    k + 1
                ));
            }
        }
        Ok(())
    }
}

/// A clash as a review file keeps it: what a planner decided about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClashState {
    /// [`clash_id`].
    pub id: String,
    /// First object (for people; the id decides).
    #[serde(default)]
    pub a: String,
    /// Second object.
    #[serde(default)]
    pub b: String,
    /// The class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
    /// The status.
    pub status: Status,
    /// Who looks after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignee: Option<String>,
    /// The planner's note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// The review part of a scene file (`"review"` in scene.json): rules and the clashes with
/// their statuses. Optional; old scene files have none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReviewFile {
    /// Ignore rules and the depth tolerance.
    #[serde(default, flatten)]
    pub rules: Rules,
    /// Clashes with statuses, assignees and comments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clashes: Vec<ClashState>,
}

/// A pair an ignore rule (or the depth tolerance) took out of `pairs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IgnoredPair {
    /// [`clash_id`].
    pub id: String,
    /// First object.
    pub a: String,
    /// Second object.
    pub b: String,
    /// The class.
    pub kind: Kind,
    /// Which rule: `ignore[2]: parts of one robot` or `min_depth 0.5`.
    pub rule: String,
}

/// Counts of clashes by status (and ignored pairs), for the report's `review` summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReviewSummary {
    /// Clashes per status name.
    pub statuses: BTreeMap<String, usize>,
    /// Pairs ignored by rules.
    pub ignored: usize,
    /// Where the previous statuses came from (`--baseline` file, the scene's review), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
}

/// `*` (any run of characters) and `?` (one character) pattern matching.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// An object's path for rules: `group/name` (names of assembly parts already hold it).
fn path_of(name: &str, group: Option<&str>) -> String {
    object_key(name, group, None)
}

fn inside(path: &str, group: &str) -> bool {
    let g = group.trim_end_matches('/');
    // The group itself or anything below it, with patterns allowed in the group.
    glob_match(g, path) || glob_match(&format!("{g}/*"), path)
}

impl IgnoreRule {
    /// Whether this rule ignores the pair.
    pub fn matches(&self, p: &PairReport) -> bool {
        let pa = path_of(&p.a, p.group_a.as_deref());
        let pb = path_of(&p.b, p.group_b.as_deref());
        if let Some(k) = self.class {
            if k != p.kind {
                return false;
            }
        }
        if let Some(g) = &self.within {
            if !(inside(&pa, g) && inside(&pb, g)) {
                return false;
            }
        }
        if self.same_group {
            match (&p.group_a, &p.group_b) {
                (Some(x), Some(y)) if x == y => {}
                _ => return false,
            }
        }
        if self.a.is_some() || self.b.is_some() {
            let m = |pat: &Option<String>, s: &str| pat.as_deref().is_none_or(|q| glob_match(q, s));
            let ok = (m(&self.a, &pa) && m(&self.b, &pb)) || (m(&self.a, &pb) && m(&self.b, &pa));
            if !ok {
                return false;
            }
        }
        true
    }

    fn label(&self, k: usize) -> String {
        match &self.reason {
            Some(r) => format!("ignore[{k}]: {r}"),
            None => format!("ignore[{k}]"),
        }
    }
}

/// Move the pairs `rules` ignore from `report.pairs` to `report.ignored`.
pub fn apply_rules(report: &mut Report, rules: &Rules) {
    if rules.is_empty() {
        return;
    }
    let pairs = std::mem::take(&mut report.pairs);
    for p in pairs {
        let by_rule = rules
            .ignore
            .iter()
            .enumerate()
            .find(|(_, r)| r.matches(&p))
            .map(|(k, r)| r.label(k));
        let by_depth = rules.min_depth.and_then(|tol| {
            let shallow = match p.kind {
                Kind::Touch => true,
                Kind::Volume => p.separation.or(p.depth).is_some_and(|d| d <= tol),
                _ => false,
            };
            shallow.then(|| format!("min_depth {tol}"))
        });
        match by_rule.or(by_depth) {
            Some(rule) => report.ignored.push(IgnoredPair {
                id: pair_id(&p),
                a: p.a,
                b: p.b,
                kind: p.kind,
                rule,
            }),
            None => report.pairs.push(p),
        }
    }
}

/// Give every pair of `report` its id and status against `baseline` (a previous review's
/// clashes; empty: every clash is `new`), and list the baseline's clashes that no longer
/// occur in `report.resolved`. Pairs ignored by rules are neither new nor resolved.
pub fn apply_baseline(report: &mut Report, baseline: &[ClashState], source: Option<String>) {
    let before: HashMap<&str, &ClashState> = baseline.iter().map(|c| (c.id.as_str(), c)).collect();
    for p in &mut report.pairs {
        let id = pair_id(p);
        let prev = before.get(id.as_str());
        p.status = Some(Status::found_again(prev.map(|c| c.status)));
        if let Some(c) = prev {
            p.assignee.clone_from(&c.assignee);
            p.comment.clone_from(&c.comment);
        }
        p.id = Some(id);
    }
    let now: std::collections::HashSet<String> = report
        .pairs
        .iter()
        .filter_map(|p| p.id.clone())
        .chain(report.ignored.iter().map(|i| i.id.clone()))
        .collect();
    report.resolved = baseline
        .iter()
        .filter(|c| !now.contains(&c.id))
        .map(|c| ClashState {
            status: Status::Resolved,
            ..c.clone()
        })
        .collect();
    summarize(report, source);
}

/// The report's `review` summary: clashes per status (pairs and resolved), ignored pairs.
fn summarize(report: &mut Report, source: Option<String>) {
    let mut statuses = BTreeMap::new();
    for s in report
        .pairs
        .iter()
        .filter_map(|p| p.status)
        .chain(report.resolved.iter().map(|c| c.status))
    {
        *statuses.entry(s.name().to_string()).or_insert(0) += 1;
    }
    report.review = Some(ReviewSummary {
        statuses,
        ignored: report.ignored.len(),
        baseline: source,
    });
}

/// Review the same check again after the rules changed (the page's rules editor): no new
/// check, so nothing is "found again". `report` is the check's report as it came (rules not
/// applied yet), `earlier` the clash states it was first reviewed against, `current` the
/// review as it stands (with what the planner set since). Clashes still listed keep their
/// current status, assignee and comment; a clash a removed rule lets back in gets the status
/// a check would have given it against `earlier` ([`Status::found_again`], `new` when it was
/// never listed); a clash a new rule ignores moves to `ignored` (neither new nor resolved);
/// resolved clashes stay resolved.
pub fn review_again(
    report: &mut Report,
    rules: &Rules,
    earlier: &[ClashState],
    current: &[ClashState],
    source: Option<String>,
) {
    apply_rules(report, rules);
    let mut merged: Vec<ClashState> = Vec::with_capacity(earlier.len() + current.len());
    let now: HashMap<&str, &ClashState> = current.iter().map(|c| (c.id.as_str(), c)).collect();
    merged.extend(
        earlier
            .iter()
            .filter(|c| !now.contains_key(c.id.as_str()))
            .cloned(),
    );
    merged.extend(current.iter().cloned());
    apply_baseline(report, &merged, source.clone());
    for p in &mut report.pairs {
        let kept =
            p.id.as_deref()
                .and_then(|id| now.get(id))
                .filter(|c| c.status != Status::Resolved);
        if let Some(c) = kept {
            p.status = Some(c.status);
        }
    }
    summarize(report, source);
}

/// The clashes of a report as a review keeps them: its pairs (with their statuses) and the
/// resolved ones. Read back by [`apply_baseline`] (the CLI's `--baseline`).
pub fn clash_states(report: &Report) -> Vec<ClashState> {
    report
        .pairs
        .iter()
        .map(|p| ClashState {
            id: p.id.clone().unwrap_or_else(|| pair_id(p)),
            a: p.a.clone(),
            b: p.b.clone(),
            kind: Some(p.kind),
            // A report written before statuses existed: its clashes were there.
            status: p.status.unwrap_or(Status::Active),
            assignee: p.assignee.clone(),
            comment: p.comment.clone(),
        })
        .chain(report.resolved.iter().cloned())
        .collect()
}

/// `YYYY-MM-DDThh:mm:ssZ` for seconds since 1970 (BCF dates are ISO 8601).
pub fn iso8601_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("cell3/robot/*", "cell3/robot/link_2"));
        assert!(glob_match("*link_?", "cell3/robot/link_2"));
        assert!(!glob_match("*link_?", "cell3/robot/link_22"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("a*b", "acbd"));
        assert!(inside("cell3/robot/tool/finger", "cell3/robot"));
        assert!(inside("cell3/robot", "cell3/robot"));
        assert!(!inside("cell3/robots/x", "cell3/robot"));
        assert!(inside("cell7/robot/x", "cell*/robot"));
    }

    #[test]
    fn ids_are_stable_and_symmetric() {
        let a = clash_id("fence", "robot/link_2", Kind::Volume);
        assert_eq!(a, clash_id("robot/link_2", "fence", Kind::Volume));
        assert_ne!(a, clash_id("fence", "robot/link_2", Kind::Touch));
        assert_ne!(a, clash_id("fence", "robot/link_3", Kind::Volume));
        assert!(
            a.starts_with("volume-") && a.len() == "volume-".len() + 16,
            "{a}"
        );
        let g = clash_guid(&a, "topic");
        assert_eq!(g, clash_guid(&a, "topic"));
        assert_ne!(g, clash_guid(&a, "viewpoint"));
        assert_eq!(g.len(), 36);
        assert_eq!(&g[14..15], "8");
        assert!(matches!(&g[19..20], "8" | "9" | "a" | "b"), "{g}");
    }

    #[test]
    fn navisworks_transitions() {
        use Status::*;
        assert_eq!(Status::found_again(None), New);
        assert_eq!(Status::found_again(Some(New)), Active);
        assert_eq!(Status::found_again(Some(Active)), Active);
        assert_eq!(Status::found_again(Some(Resolved)), Active);
        assert_eq!(Status::found_again(Some(Reviewed)), Reviewed);
        assert_eq!(Status::found_again(Some(Approved)), Approved);
    }

    fn pair(a: &str, b: &str, kind: Kind) -> PairReport {
        PairReport::new(a.into(), b.into(), kind)
    }

    fn state(p: &PairReport, status: Status) -> ClashState {
        ClashState {
            id: pair_id(p),
            a: p.a.clone(),
            b: p.b.clone(),
            kind: Some(p.kind),
            status,
            assignee: None,
            comment: None,
        }
    }

    #[test]
    fn reviewing_again_with_new_rules_keeps_statuses() {
        let (x, y, z) = (
            pair("robot/link_1", "robot/link_2", Kind::Touch),
            pair("fence", "robot/link_2", Kind::Volume),
            pair("shelf", "box", Kind::Volume),
        );
        let raw = Report {
            pairs: vec![x.clone(), y.clone(), z.clone()],
            ..Report::default()
        };
        // First review: against a baseline where y was reviewed and z never seen; w gone.
        let w = pair("old", "gone", Kind::Volume);
        let earlier = vec![state(&y, Status::Reviewed), state(&w, Status::Active)];
        let mut first = raw.clone();
        apply_baseline(&mut first, &earlier, None);
        let mut current = clash_states(&first);
        assert_eq!(
            current.iter().map(|c| c.status).collect::<Vec<_>>(),
            [Status::New, Status::Reviewed, Status::New, Status::Resolved]
        );
        // The planner comments on z.
        current[2].comment = Some("check the drawing".into());

        // A rule ignores the robot's own links: x leaves, nobody else changes (a re-check
        // would have turned new into active).
        let rules = Rules {
            ignore: vec![IgnoreRule {
                within: Some("robot".into()),
                ..IgnoreRule::default()
            }],
            min_depth: None,
        };
        let mut again = raw.clone();
        review_again(&mut again, &rules, &earlier, &current, None);
        let got: Vec<(String, Option<Status>)> = again
            .pairs
            .iter()
            .map(|p| (p.a.clone(), p.status))
            .collect();
        assert_eq!(
            got,
            [
                ("fence".to_string(), Some(Status::Reviewed)),
                ("shelf".to_string(), Some(Status::New))
            ]
        );
        assert_eq!(again.pairs[1].comment.as_deref(), Some("check the drawing"));
        assert_eq!(again.ignored.len(), 1);
        assert_eq!(again.ignored[0].id, pair_id(&x));
        assert_eq!(again.resolved.len(), 1, "x is ignored, not resolved");
        assert_eq!(again.resolved[0].id, pair_id(&w));
        let summary = again.review.clone().unwrap();
        assert_eq!(summary.ignored, 1);
        assert_eq!(summary.statuses.get("new"), Some(&1));
        assert_eq!(summary.statuses.get("resolved"), Some(&1));

        // The rule removed again: x comes back as it would from a check (new: it was never
        // in `earlier`), the others as they were.
        let now = clash_states(&again);
        let mut back = raw;
        review_again(&mut back, &Rules::default(), &earlier, &now, None);
        assert_eq!(back.pairs.len(), 3);
        assert_eq!(back.pairs[0].status, Some(Status::New));
        assert_eq!(back.pairs[1].status, Some(Status::Reviewed));
        assert!(back.ignored.is_empty());
    }

    #[test]
    fn dates() {
        assert_eq!(iso8601_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso8601_utc(1_795_000_000), "2026-11-18T11:06:40Z");
    }
}
