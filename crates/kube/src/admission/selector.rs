//! Label selectors as the plugins parse and match them: `metav1.LabelSelectorAsSelector`
//! (`apimachinery/pkg/apis/meta/v1/helpers.go`) over `labels.NewRequirement` and
//! `Requirement.Matches` (`apimachinery/pkg/labels/selector.go`).

use std::collections::BTreeMap;

use super::model::LabelSelector;
use crate::name_validation::{is_label_key, is_valid_label_value};

/// One parsed requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Requirement {
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

/// A parsed selector: every requirement must hold. No requirement matches everything
/// (`labels.Everything()`, which [`Selector::is_empty`] reports as the plugins test).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    requirements: Vec<Requirement>,
}

/// Why a selector does not parse: the apimachinery error, as its text prints
/// (`labels.NewRequirement`: `validateLabelKey`, `validateLabelValue` and the operator checks,
/// `apimachinery/pkg/labels/selector.go`; the operator switch of `LabelSelectorAsSelector`,
/// `apimachinery/pkg/apis/meta/v1/helpers.go`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// A key that is not a qualified name (`field.Invalid(path.Child("key"), ...)`).
    #[error("key: Invalid value: {key:?}: {}", .reasons.join("; "))]
    InvalidKey {
        /// The key.
        key: String,
        /// Why it is invalid (`validation.IsQualifiedName`'s messages).
        reasons: Vec<String>,
    },
    /// A value that is not a label value (`field.Invalid(valuePath.Index(i), ...)`).
    #[error("values[{index}][{value}]: Invalid value: {value:?}: {}", .reasons.join("; "))]
    InvalidValue {
        /// The value's index among the requirement's values.
        index: usize,
        /// The value.
        value: String,
        /// Why it is invalid (`validation.IsValidLabelValue`'s messages).
        reasons: Vec<String>,
    },
    /// `In` or `NotIn` without values.
    #[error(
        "values: Invalid value: []string{{}}: for 'in', 'notin' operators, values set can't be empty"
    )]
    NoValues,
    /// `Exists` or `DoesNotExist` with values.
    #[error("values: Invalid value: values set must be empty for exists and does not exist")]
    UnexpectedValues,
    /// An operator other than `In`, `NotIn`, `Exists` and `DoesNotExist`.
    #[error("{0:?} is not a valid label selector operator")]
    UnknownOperator(String),
}

fn check_key(key: &str) -> Result<(), SelectorError> {
    let reasons = is_label_key(key);
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(SelectorError::InvalidKey {
            key: key.to_string(),
            reasons,
        })
    }
}

fn check_values(values: &[String]) -> Result<(), SelectorError> {
    for (index, v) in values.iter().enumerate() {
        let reasons = is_valid_label_value(v);
        if !reasons.is_empty() {
            return Err(SelectorError::InvalidValue {
                index,
                value: v.clone(),
                reasons,
            });
        }
    }
    Ok(())
}

impl Selector {
    /// `LabelSelectorAsSelector` of a present selector.
    pub fn parse(s: &LabelSelector) -> Result<Selector, SelectorError> {
        let mut requirements = Vec::new();
        for (k, v) in &s.match_labels {
            check_key(k)?;
            check_values(std::slice::from_ref(v))?;
            requirements.push(Requirement::In(k.clone(), vec![v.clone()]));
        }
        for e in &s.match_expressions {
            let values = e.values.clone();
            let r = match e.operator.as_str() {
                "In" | "NotIn" => {
                    check_key(&e.key)?;
                    if values.is_empty() {
                        return Err(SelectorError::NoValues);
                    }
                    check_values(&values)?;
                    if e.operator == "In" {
                        Requirement::In(e.key.clone(), values)
                    } else {
                        Requirement::NotIn(e.key.clone(), values)
                    }
                }
                "Exists" | "DoesNotExist" => {
                    check_key(&e.key)?;
                    if !values.is_empty() {
                        return Err(SelectorError::UnexpectedValues);
                    }
                    if e.operator == "Exists" {
                        Requirement::Exists(e.key.clone())
                    } else {
                        Requirement::DoesNotExist(e.key.clone())
                    }
                }
                other => {
                    return Err(SelectorError::UnknownOperator(other.to_string()));
                }
            };
            requirements.push(r);
        }
        Ok(Selector { requirements })
    }

    /// Whether it selects everything (`Selector.Empty()`).
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| match r {
            Requirement::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::model::LabelSelectorRequirement;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn req(key: &str, op: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn requirements_match_as_apimachinery_does() {
        let s = Selector::parse(&LabelSelector {
            match_labels: labels(&[("env", "prod")]),
            match_expressions: vec![
                req("tier", "NotIn", &["db"]),
                req("team", "Exists", &[]),
                req("legacy", "DoesNotExist", &[]),
            ],
        })
        .expect("parses");
        assert!(s.matches(&labels(&[("env", "prod"), ("team", "a")])));
        assert!(!s.matches(&labels(&[("env", "prod"), ("team", "a"), ("tier", "db")])));
        assert!(!s.matches(&labels(&[("env", "dev"), ("team", "a")])));
        assert!(!s.matches(&labels(&[("env", "prod")])));
        assert!(
            Selector::parse(&LabelSelector::default())
                .expect("ok")
                .is_empty()
        );
    }

    #[test]
    fn bad_operators_are_errors() {
        let e = Selector::parse(&LabelSelector {
            match_expressions: vec![req("a", "Is", &["x"])],
            ..Default::default()
        })
        .expect_err("bad operator");
        assert_eq!(
            e.to_string(),
            "\"Is\" is not a valid label selector operator"
        );
    }
}
