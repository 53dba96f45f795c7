//! The CRDs of a run: every CustomResourceDefinition document of `--crd` files and inputs,
//! reviewed as kube-apiserver reviews a CRD being created ([`crate::crd_review`]). A CRD is used
//! only if it is accepted and no other CRD of the same `metadata.name` came before it; identical
//! duplicates are fine (the first is used), different ones are an error at the later one. A
//! rejected or conflicting CRD is an error record, and the objects of its kind are errors that
//! name it rather than objects of an unknown kind.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use super::parallel::ordered_map;
use crate::crd_review::review_crd;
use crate::documents::{Document, LocatedCrd, decode_crd};
use crate::kubectl;
use crate::report::{Outcome, Record};
use crate::values::JsonBody;
use crate::version::KubeVersion;

/// What became of one CRD document.
pub(super) struct CrdOutcome {
    /// Its record: valid (used, or an identical duplicate of one used), or an error.
    pub record: Record,
    /// The CRD, when it decodes.
    pub crd: Option<LocatedCrd>,
    /// Whether the CRD is used.
    pub used: bool,
}

/// The CRDs that could not be used, by group and kind: why, for the objects of that kind.
#[derive(Default)]
pub(super) struct Unusable {
    by_kind: HashMap<(String, String), String>,
}

impl Unusable {
    /// Why no CRD serves `api_version` and `kind`, if a CRD of theirs was unusable.
    pub fn reason(&self, api_version: &str, kind: &str) -> Option<&str> {
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        self.by_kind
            .get(&(group.to_string(), kind.to_string()))
            .map(String::as_str)
    }
}

/// Decodes and reviews the CRD documents `docs` (on up to `jobs` threads), then settles
/// duplicates in order. Returns an outcome per document, in order, and the unusable kinds.
pub(super) fn collect(
    docs: &[&Document<JsonBody>],
    version: KubeVersion,
    jobs: NonZeroUsize,
) -> (Vec<CrdOutcome>, Unusable) {
    let mut outcomes = ordered_map(docs, jobs, |doc| review(doc, version));
    let mut first_of_name: HashMap<&str, (&JsonBody, String)> = HashMap::new();
    for (doc, outcome) in docs.iter().zip(&mut outcomes) {
        let Some(crd) = outcome.crd.as_ref().filter(|_| outcome.used) else {
            continue;
        };
        match first_of_name.get(crd.crd.metadata.name.as_str()) {
            None => {
                first_of_name.insert(&crd.crd.metadata.name, (&doc.value, doc.location()));
            }
            Some((first, _)) if same_document(first, &doc.value) => outcome.used = false,
            Some((_, at)) => {
                outcome.record.outcome = Outcome::Error;
                outcome.record.message = format!(
                    "CustomResourceDefinition {:?} differs from the one of the same name at {at}; only that one is used",
                    crd.crd.metadata.name
                );
                outcome.used = false;
            }
        }
    }
    let key = |c: &LocatedCrd| (c.crd.spec.group.clone(), c.crd.spec.names.kind.clone());
    let mut unusable = Unusable::default();
    for o in &outcomes {
        if let Some(c) = o
            .crd
            .as_ref()
            .filter(|_| o.record.outcome == Outcome::Error)
        {
            // A rejected CRD's record carries its 422 status, a conflicting one none.
            let why = if o.record.status.is_some() {
                "is rejected"
            } else {
                "differs from an earlier one of the same name"
            };
            let why = format!(
                "the CustomResourceDefinition at {} {why}",
                o.record.location()
            );
            unusable.by_kind.entry(key(c)).or_insert(why);
        }
    }
    // A kind served by a used CRD is not unusable, whatever else was given for it.
    for c in outcomes
        .iter()
        .filter(|o| o.used)
        .filter_map(|o| o.crd.as_ref())
    {
        unusable.by_kind.remove(&key(c));
    }
    (outcomes, unusable)
}

/// Decodes and reviews one CRD document.
/// Whether two documents are the same JSON (objects compared whatever the order of their keys,
/// as `serde_json`'s ordered maps compare; integers beyond int64 in their exact forms).
fn same_document(a: &JsonBody, b: &JsonBody) -> bool {
    a.json() == b.json() && a.exact() == b.exact()
}

fn review(doc: &Document<JsonBody>, version: KubeVersion) -> CrdOutcome {
    let located = match decode_crd(doc) {
        Ok(c) => c,
        Err(e) => {
            return CrdOutcome {
                record: Record::of(doc, Outcome::Error, e.message()),
                crd: None,
                used: false,
            };
        }
    };
    let review = review_crd(&located.crd, None, version);
    if review.accepted() {
        return CrdOutcome {
            record: Record::of(doc, Outcome::Valid, String::new()),
            crd: Some(located),
            used: true,
        };
    }
    let status = review.status(&located.crd, version);
    let message =
        kubectl::status_message(crate::crd::CRD_KIND, &located.crd.metadata.name, &status);
    CrdOutcome {
        record: Record {
            status: Some(status),
            ..Record::of(doc, Outcome::Error, message)
        },
        crd: Some(located),
        used: false,
    }
}
