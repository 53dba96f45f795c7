//! Kubernetes' cost functions (`library/cost.go`, reference §10.11), as plain
//! functions for the engine's cost hooks:
//!
//! * [`estimate_call`] — the static estimate of one call (`EstimateCallCost`),
//!   added by the checker to the costs of the receiver and arguments;
//! * [`call_cost`] — the runtime cost of one call (`CallCost`), the whole cost
//!   of the call node (arguments are charged as they are evaluated).
//!
//! Both return `None` for calls Kubernetes leaves to cel-go's defaults.

use cel::library::ext::cost::{Range, RangeCallEstimate, multiply_by_cost_factor};
use cel::{Type, Value};

use super::cidr::CidrValue;
use super::common::{
    CIDR_TYPE_NAME, FORMAT_TYPE_NAME, IP_TYPE_NAME, QUANTITY_TYPE_NAME, SEMVER_TYPE_NAME,
    URL_TYPE_NAME, downcast,
};
use super::format::FormatValue;
use super::ip::IpValue;

/// cel-go's `common.StringTraversalCostFactor`.
pub const STRING_TRAVERSAL_COST_FACTOR: f64 = 0.1;
/// cel-go's `common.RegexStringLengthCostFactor`.
pub const REGEX_STRING_LENGTH_COST_FACTOR: f64 = 0.25;
/// cel-go's `common.ListCreateBaseCost`.
pub const LIST_CREATE_BASE_COST: u64 = 10;
/// cel-go's `common.StructCreateBaseCost`.
pub const STRUCT_CREATE_BASE_COST: u64 = 40;
/// Kubernetes' `MaxNameFormatRegexSize`: the regex size assumed by `validate`'s estimate.
pub const MAX_NAME_FORMAT_REGEX_SIZE: f64 = 128.0;
/// Kubernetes' `MaxFormatSize`: the largest size of a format value.
pub const MAX_FORMAT_SIZE: u64 = 64;
/// Authorization checks cost this much, statically and at runtime.
pub const AUTHZ_CHECK_COST: u64 = 350_000;

/// `{0, u64::MAX}`: nothing known about a size.
pub const UNKNOWN: Range = Range {
    min: 0,
    max: u64::MAX,
};

/// `{min, max}`.
pub const fn range(min: u64, max: u64) -> Range {
    Range { min, max }
}

/// cel-go's `SizeEstimate.Union`.
fn union(a: Range, b: Range) -> Range {
    range(a.min.min(b.min), a.max.max(b.max))
}

/// `ceil(x × f)` in IEEE f64 as cel-go computes it, saturating at `u64::MAX`.
pub fn mul_factor(x: u64, f: f64) -> u64 {
    multiply_by_cost_factor(x, f)
}

/// What the estimator knows about the receiver or one argument of a call.
#[derive(Clone, Copy, Debug)]
pub struct Operand<'a> {
    /// The checked type.
    pub ty: &'a Type,
    /// The size as Kubernetes' `sizeEstimate` resolves it: cel-go's computed
    /// size, else the host size estimator's answer, else [`UNKNOWN`].
    pub size: Range,
    /// cel-go's computed size alone (`ComputedSize()`), when there is one.
    pub computed_size: Option<Range>,
    /// For list-typed operands: the size of an element as the host estimator
    /// answers for the `@items` node (else [`UNKNOWN`]).
    pub elem_size: Range,
    /// The value when the operand is an int literal.
    pub int_literal: Option<i64>,
}

impl Operand<'_> {
    /// An operand with only a type and a size.
    pub fn new(ty: &Type, size: Range) -> Operand<'_> {
        Operand {
            ty,
            size,
            computed_size: None,
            elem_size: UNKNOWN,
            int_literal: None,
        }
    }
}

fn fixed(n: u64) -> Option<RangeCallEstimate> {
    Some(RangeCallEstimate {
        cost: range(n, n),
        result_size: None,
    })
}

fn cost_only(cost: Range) -> Option<RangeCallEstimate> {
    Some(RangeCallEstimate {
        cost,
        result_size: None,
    })
}

/// Kubernetes' `selectorCostEstimate` for `fieldSelector`/`labelSelector`.
fn selector_cost(len: Range) -> Range {
    let parse = len.multiply_by_cost_factor(STRING_TRAVERSAL_COST_FACTOR);
    let requirements = len.multiply_by_cost_factor(0.5);
    let per = (LIST_CREATE_BASE_COST + STRUCT_CREATE_BASE_COST) as f64;
    let requirement_cost = requirements.multiply_by_cost_factor(per);
    range(LIST_CREATE_BASE_COST, LIST_CREATE_BASE_COST)
        .saturating_add(parse)
        .saturating_add(requirement_cost)
}

fn is_string_or_bytes(t: &Type) -> bool {
    matches!(t, Type::String | Type::Bytes)
}

/// Kubernetes' `EstimateCallCost`. `target` is the receiver of a member call
/// (`None` for global calls); `args` are the parenthesised arguments only.
pub fn estimate_call(
    function: &str,
    overload_id: &str,
    target: Option<&Operand<'_>>,
    args: &[Operand<'_>],
) -> Option<RangeCallEstimate> {
    let traversal = STRING_TRAVERSAL_COST_FACTOR;
    let arg0 = args.first();
    match function {
        "check" => fixed(AUTHZ_CHECK_COST),
        "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace" | "name"
        | "allowed" | "reason" | "error" | "errored" => fixed(1),
        "fieldSelector" | "labelSelector" if args.len() == 1 => {
            cost_only(selector_cost(args[0].size))
        }
        "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" | "includes" => {
            let t = target?;
            match t.ty {
                Type::List(elem) => {
                    let mut el_cost = range(1, 1);
                    if is_string_or_bytes(elem) {
                        el_cost =
                            el_cost.saturating_add(t.elem_size.multiply_by_cost_factor(traversal));
                    }
                    cost_only(t.size.saturating_mul(el_cost))
                }
                // `includes` on a non-list receiver compares once per unit of size.
                _ if function == "includes" => cost_only(t.size),
                _ => cost_only(t.size.multiply_by_cost_factor(traversal)),
            }
        }
        "url" | "jsonpatch.escapeKey" if args.len() == 1 => {
            let sz = args[0].size;
            Some(RangeCallEstimate {
                cost: sz.multiply_by_cost_factor(traversal),
                result_size: Some(sz),
            })
        }
        "lowerAscii" | "upperAscii" | "substring" | "trim" => {
            let sz = target?.size;
            Some(RangeCallEstimate {
                cost: sz.multiply_by_cost_factor(traversal),
                result_size: Some(sz),
            })
        }
        "replace" if args.len() >= 2 => {
            let sz = target?.size;
            let old = args[0].size;
            let new = args[1].size;
            let (mut count, mut retained) = (range(0, 0), range(0, 0));
            if old.min == 0 {
                count.max = sz.max.saturating_add(1);
                retained.max = sz.max;
            } else if new.max <= old.min {
                count.max = 0;
                retained.max = sz.max;
            } else {
                count.max = go_ceil_div(sz.max, old.min);
            }
            if old.max == 0 {
                count.min = if sz.min < u64::MAX {
                    sz.min + 1
                } else {
                    sz.min
                };
                retained.min = sz.min;
            } else if old.max <= new.min {
                count.min = 0;
                retained.min = sz.min;
            } else {
                count.min = go_ceil_div(sz.min, old.max);
            }
            let size = count.saturating_mul(new).saturating_add(retained);
            Some(RangeCallEstimate {
                cost: sz.multiply_by_cost_factor(2.0 * traversal),
                result_size: Some(size),
            })
        }
        "split" => {
            let sz = target?.size;
            let mut max = sz.max;
            if let Some(i) = args.get(1).and_then(|a| a.int_literal) {
                max = i as u64;
            }
            Some(RangeCallEstimate {
                cost: sz.multiply_by_cost_factor(2.0 * traversal),
                result_size: Some(range(0, max)),
            })
        }
        "join" => {
            let t = target?;
            let list = t.size;
            let mut sz = match t.ty {
                Type::List(_) => list.saturating_mul(t.elem_size),
                _ => range(0, 0),
            };
            if let Some(sep) = arg0 {
                let seps = range(list.min.saturating_sub(1), list.max.saturating_sub(1));
                sz = sz.saturating_add(sep.size.saturating_mul(seps));
            }
            Some(RangeCallEstimate {
                cost: sz.multiply_by_cost_factor(traversal),
                result_size: Some(sz),
            })
        }
        "find" | "findAll" if !args.is_empty() => {
            let sz = target?.size;
            let str_cost = sz
                .saturating_add(range(1, 1))
                .multiply_by_cost_factor(traversal);
            let regex_cost = args[0]
                .size
                .multiply_by_cost_factor(REGEX_STRING_LENGTH_COST_FACTOR);
            Some(RangeCallEstimate {
                cost: str_cost.saturating_mul(regex_cost),
                result_size: Some(range(0, sz.max)),
            })
        }
        "cidr" | "isIP" | "isCIDR" | "quantity" | "isQuantity" | "semver" | "isSemver" => {
            cost_only(arg0?.size.multiply_by_cost_factor(traversal))
        }
        "ip" => {
            if overload_id == "cidr_ip" || arg0.is_none() {
                return fixed(1);
            }
            cost_only(arg0?.size.multiply_by_cost_factor(traversal))
        }
        "ip.isCanonical" => cost_only(arg0?.size.multiply_by_cost_factor(2.0 * traversal)),
        f if is_ip_or_cidr_accessor(f) => fixed(1),
        "containsIP" if !args.is_empty() => {
            let sz = range(4, 16);
            let mut c = sz.saturating_add(sz).multiply_by_cost_factor(traversal);
            if overload_id == "cidr_contains_ip_string" {
                c = c.saturating_add(args[0].size.multiply_by_cost_factor(traversal));
            }
            cost_only(c)
        }
        "containsCIDR" if !args.is_empty() => {
            let sz = range(4, 16);
            let mut c = sz.saturating_add(sz).multiply_by_cost_factor(traversal);
            c = c
                .saturating_add(sz.multiply_by_cost_factor(traversal))
                .saturating_add(range(1, 1));
            if overload_id == "cidr_contains_cidr_string" {
                c = c.saturating_add(args[0].size.multiply_by_cost_factor(traversal));
            }
            cost_only(c)
        }
        "validate" => cost_only(
            arg0?
                .size
                .multiply_by_cost_factor(traversal)
                .multiply_by_cost_factor(
                    MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR,
                ),
        ),
        "format.named" => fixed(1),
        "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan"
        | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor" | "patch" => fixed(1),
        "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery" => {
            fixed(1)
        }
        "_==_" if args.len() == 2 => estimate_equals(&args[0], &args[1]),
        _ => None,
    }
}

/// The IP and CIDR accessors and predicates, which cost 1 statically and at runtime.
fn is_ip_or_cidr_accessor(function: &str) -> bool {
    matches!(
        function,
        "masked"
            | "prefixLength"
            | "family"
            | "isUnspecified"
            | "isLoopback"
            | "isLinkLocalMulticast"
            | "isLinkLocalUnicast"
            | "isGlobalUnicast"
    )
}

/// Go's `uint64(math.Ceil(float64(a) / float64(b)))`.
fn go_ceil_div(a: u64, b: u64) -> u64 {
    let v = (a as f64 / b as f64).ceil();
    if v >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        v as u64
    }
}

fn estimate_equals(lhs: &Operand<'_>, rhs: &Operand<'_>) -> Option<RangeCallEstimate> {
    if lhs.ty != rhs.ty {
        return None;
    }
    let Type::Opaque(name, _) = lhs.ty else {
        return None;
    };
    match &**name {
        IP_TYPE_NAME | CIDR_TYPE_NAME | QUANTITY_TYPE_NAME | SEMVER_TYPE_NAME => fixed(1),
        n if n.starts_with("kubernetes.authorization.") => fixed(1),
        FORMAT_TYPE_NAME => cost_only(
            range(1, MAX_FORMAT_SIZE).multiply_by_cost_factor(STRING_TRAVERSAL_COST_FACTOR),
        ),
        URL_TYPE_NAME => {
            // Kubernetes takes both sizes from the right operand.
            let size = match rhs.computed_size {
                Some(r) => union(r, r),
                None => range(1, 1),
            };
            cost_only(range(1, size.max).multiply_by_cost_factor(STRING_TRAVERSAL_COST_FACTOR))
        }
        _ => None,
    }
}

/// Kubernetes' `actualSize`: `size()` of sized values (strings in code points),
/// address bytes of IPs and prefix bytes of CIDRs, else 1.
pub fn actual_size(v: &Value) -> u64 {
    match v {
        Value::String(s) => s.chars().count() as u64,
        Value::Bytes(b) => b.len() as u64,
        Value::List(l) => l.len() as u64,
        Value::Map(m) => m.len() as u64,
        Value::Opaque(_) => {
            if let Some(ip) = downcast::<IpValue>(v) {
                return ip.0.bit_len().div_ceil(8) as u64;
            }
            if let Some(c) = downcast::<CidrValue>(v) {
                return c.0.bits.div_ceil(8) as u64;
            }
            1
        }
        _ => 1,
    }
}

/// Kubernetes' `traversalCost`: strings and bytes ⌊0.1·bytes⌋ (truncated),
/// lists and maps the sum over their parts, anything else 1.
pub fn traversal_cost(v: &Value) -> u64 {
    match v {
        Value::String(s) => (s.len() as f64 * STRING_TRAVERSAL_COST_FACTOR) as u64,
        Value::Bytes(b) => (b.len() as f64 * STRING_TRAVERSAL_COST_FACTOR) as u64,
        Value::List(l) => l
            .iter()
            .fold(0u64, |acc, x| acc.saturating_add(traversal_cost(&x))),
        Value::Map(m) => m.entries().fold(0u64, |acc, (k, x)| {
            acc.saturating_add(traversal_cost(&k.to_value()))
                .saturating_add(traversal_cost(&x))
        }),
        _ => 1,
    }
}

fn ceil_factor(n: u64, f: f64) -> u64 {
    mul_factor(n, f)
}

/// Kubernetes' `CallCost` for the calls of one function and overload, chosen once per call
/// site ([`RuntimeCost::of`]); [`RuntimeCost::cost`] prices one call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RuntimeCost {
    /// A fixed cost (authorization checks and accessors, IP and CIDR predicates, quantity,
    /// semver and URL accessors, `format.named`).
    Fixed(u64),
    /// `fieldSelector`/`labelSelector`: by the selector's length.
    Selector,
    /// `isSorted`, `sum`, `max`, `min`, `indexOf`, `lastIndexOf`, `includes`: the traversal
    /// cost of the receiver.
    Traversal,
    /// ⌈f·size(receiver or first argument)⌉.
    FirstSize(f64),
    /// `join`: ⌈0.2·size(result)⌉.
    JoinResult,
    /// `find`, `findAll`: string length times regex length.
    Find,
    /// `ip(string)`; `cidr.ip()` (`cidr`: 1).
    Ip {
        /// The `cidr_ip` overload.
        cidr: bool,
    },
    /// `containsIP`; `string`: the string overload adds the string's traversal.
    ContainsIp {
        /// The `cidr_contains_ip_string` overload.
        string: bool,
    },
    /// `containsCIDR`; `string`: the string overload adds the string's traversal.
    ContainsCidr {
        /// The `cidr_contains_cidr_string` overload.
        string: bool,
    },
    /// `format.validate`: by the string and the format's regex size.
    Validate,
    /// `_==_` on Kubernetes' opaque types: 1 (else cel-go's default).
    Equals,
}

impl RuntimeCost {
    /// The cost function Kubernetes attaches to calls of `function` bound to `overload_id`, if
    /// any (`None`: cel-go's defaults price them).
    pub fn of(function: &str, overload_id: &str) -> Option<RuntimeCost> {
        let t = STRING_TRAVERSAL_COST_FACTOR;
        Some(match function {
            "check" => RuntimeCost::Fixed(AUTHZ_CHECK_COST),
            "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace"
            | "name" | "allowed" | "reason" | "error" | "errored" => RuntimeCost::Fixed(1),
            "fieldSelector" | "labelSelector" => RuntimeCost::Selector,
            "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" | "includes" => {
                RuntimeCost::Traversal
            }
            "url"
            | "lowerAscii"
            | "upperAscii"
            | "substring"
            | "trim"
            | "jsonpatch.escapeKey"
            | "cidr"
            | "isIP"
            | "isCIDR"
            | "quantity"
            | "isQuantity"
            | "semver"
            | "isSemver" => RuntimeCost::FirstSize(t),
            "replace" | "split" | "ip.isCanonical" => RuntimeCost::FirstSize(2.0 * t),
            "join" => RuntimeCost::JoinResult,
            "find" | "findAll" => RuntimeCost::Find,
            "ip" => RuntimeCost::Ip {
                cidr: overload_id == "cidr_ip",
            },
            f if is_ip_or_cidr_accessor(f) => RuntimeCost::Fixed(1),
            "containsIP" => RuntimeCost::ContainsIp {
                string: overload_id == "cidr_contains_ip_string",
            },
            "containsCIDR" => RuntimeCost::ContainsCidr {
                string: overload_id == "cidr_contains_cidr_string",
            },
            "validate" => RuntimeCost::Validate,
            "format.named" => RuntimeCost::Fixed(1),
            "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan"
            | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor" | "patch" => {
                RuntimeCost::Fixed(1)
            }
            "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery" => {
                RuntimeCost::Fixed(1)
            }
            "_==_" => RuntimeCost::Equals,
            _ => return None,
        })
    }

    /// The cost of one call: `args` holds the receiver first for member calls; `result` is
    /// the call's result. `None` leaves the call to cel-go's defaults.
    pub fn cost(self, args: &[&Value], result: &Value) -> Option<u64> {
        let t = STRING_TRAVERSAL_COST_FACTOR;
        match self {
            RuntimeCost::Fixed(n) => Some(n),
            RuntimeCost::Selector if args.len() >= 2 => {
                let n = actual_size(args[1]);
                Some(selector_cost(range(n, n)).max)
            }
            RuntimeCost::Traversal => Some(args.first().map_or(0, |a| traversal_cost(a))),
            RuntimeCost::FirstSize(f) => Some(ceil_factor(actual_size(args.first()?), f)),
            RuntimeCost::JoinResult if !args.is_empty() => {
                Some(ceil_factor(actual_size(result), 2.0 * t))
            }
            RuntimeCost::Find if args.len() >= 2 => {
                let s = ((1.0 + actual_size(args[0]) as f64) * t).ceil() as u64;
                let r = ceil_factor(actual_size(args[1]), REGEX_STRING_LENGTH_COST_FACTOR);
                Some(s.saturating_mul(r))
            }
            RuntimeCost::Ip { cidr } => {
                let a = args.first()?;
                if cidr {
                    return Some(1);
                }
                Some(ceil_factor(actual_size(a), t))
            }
            RuntimeCost::ContainsIp { string } if args.len() >= 2 => {
                let cidr = actual_size(args[0]);
                let mut c = ceil_factor(cidr + cidr, t);
                if string {
                    c += ceil_factor(actual_size(args[1]), t);
                }
                Some(c)
            }
            RuntimeCost::ContainsCidr { string } if args.len() >= 2 => {
                let cidr = actual_size(args[0]);
                let mut c = ceil_factor(cidr + cidr, t) + ceil_factor(cidr, t) + 1;
                if string {
                    c += ceil_factor(actual_size(args[1]), t);
                }
                Some(c)
            }
            RuntimeCost::Validate if args.len() >= 2 => {
                let f = downcast::<FormatValue>(args[0])?;
                let s = ((1.0 + actual_size(args[1]) as f64) * t).ceil() as u64;
                let r = ceil_factor(f.0.max_regex_size, REGEX_STRING_LENGTH_COST_FACTOR);
                Some(s.saturating_mul(r))
            }
            RuntimeCost::Equals if args.len() == 2 => match args[0] {
                Value::Opaque(o) => {
                    let n = o.type_name();
                    let kube = matches!(
                        n,
                        IP_TYPE_NAME
                            | CIDR_TYPE_NAME
                            | QUANTITY_TYPE_NAME
                            | SEMVER_TYPE_NAME
                            | URL_TYPE_NAME
                            | FORMAT_TYPE_NAME
                    ) || n.starts_with("kubernetes.authorization.");
                    kube.then_some(1)
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// Kubernetes' `CallCost` ([`RuntimeCost`]) by function and overload id. `args` holds the
/// receiver first for member calls; `result` is the call's result.
pub fn call_cost(
    function: &str,
    overload_id: &str,
    args: &[&Value],
    result: &Value,
) -> Option<u64> {
    RuntimeCost::of(function, overload_id)?.cost(args, result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::{cidr, format, ip, quantity};

    fn lit(ty: &Type, n: u64) -> Operand<'_> {
        let r = range(n, n);
        Operand {
            ty,
            size: r,
            computed_size: Some(r),
            elem_size: UNKNOWN,
            int_literal: None,
        }
    }

    #[test]
    fn cost_factor_rounds_like_cel_go() {
        assert_eq!(mul_factor(14, 0.1), 2);
        assert_eq!(mul_factor(10, 0.1), 1);
        assert_eq!(mul_factor(0, 0.1), 0);
        assert_eq!(mul_factor(u64::MAX, 0.1), 1_844_674_407_370_955_264);
        assert_eq!(mul_factor(u64::MAX, 2.0), u64::MAX);
    }

    #[test]
    fn estimates_from_the_kubernetes_tables() {
        let s = Type::String;
        // ip('192.168.0.1') = 2; ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888') = 8.
        assert_eq!(
            estimate_call("ip", "string_to_ip", None, &[lit(&s, 11)])
                .unwrap()
                .cost,
            range(2, 2)
        );
        assert_eq!(
            estimate_call("ip.isCanonical", "ip_is_canonical", None, &[lit(&s, 39)])
                .unwrap()
                .cost,
            range(8, 8)
        );
        let c = Type::opaque(CIDR_TYPE_NAME, vec![]);
        let recv = Operand::new(&c, UNKNOWN);
        assert_eq!(
            estimate_call("ip", "cidr_ip", Some(&recv), &[])
                .unwrap()
                .cost,
            range(1, 1)
        );
        // containsIP: {1,4}; the string overload adds ⌈0.1·len⌉.
        let ipt = Type::opaque(IP_TYPE_NAME, vec![]);
        assert_eq!(
            estimate_call(
                "containsIP",
                "cidr_contains_ip_ip",
                Some(&recv),
                &[Operand::new(&ipt, UNKNOWN)]
            )
            .unwrap()
            .cost,
            range(1, 4)
        );
        assert_eq!(
            estimate_call(
                "containsCIDR",
                "cidr_contains_cidr_string",
                Some(&recv),
                &[lit(&s, 12)]
            )
            .unwrap()
            .cost,
            range(5, 9)
        );
        // List of five 12-char strings: 5 × (1 + {0,2}) = {5, 15}.
        let ls = Type::list(Type::String);
        let list = Operand {
            ty: &ls,
            size: range(5, 5),
            computed_size: Some(range(5, 5)),
            elem_size: range(0, 12),
            int_literal: None,
        };
        assert_eq!(
            estimate_call("isSorted", "list_string_is_sorted_bool", Some(&list), &[])
                .unwrap()
                .cost,
            range(5, 15)
        );
        // String receiver of indexOf: ⌈0.1·50⌉; includes: 50 × 1.
        assert_eq!(
            estimate_call(
                "indexOf",
                "string_index_of_string",
                Some(&lit(&s, 50)),
                &[lit(&s, 3)]
            )
            .unwrap()
            .cost,
            range(5, 5)
        );
        let d = Type::Dyn;
        assert_eq!(
            estimate_call(
                "includes",
                "list_includes_dyn_dyn",
                Some(&lit(&d, 50)),
                &[lit(&d, 3)]
            )
            .unwrap()
            .cost,
            range(50, 50)
        );
        // validate: 32 × ⌈0.1·7⌉.
        let f = Type::opaque(FORMAT_TYPE_NAME, vec![]);
        assert_eq!(
            estimate_call(
                "validate",
                "format-validate",
                Some(&Operand::new(&f, UNKNOWN)),
                &[lit(&s, 7)]
            )
            .unwrap()
            .cost,
            range(32, 32)
        );
        assert_eq!(
            estimate_equals(&Operand::new(&f, UNKNOWN), &Operand::new(&f, UNKNOWN))
                .unwrap()
                .cost,
            range(1, 7)
        );
        // URL equality: sizes taken from the right operand only.
        let u = Type::opaque(URL_TYPE_NAME, vec![]);
        let with = |n| Operand {
            computed_size: Some(range(n, n)),
            ..Operand::new(&u, range(n, n))
        };
        assert_eq!(
            estimate_equals(&with(100), &with(30)).unwrap().cost,
            range(1, 3)
        );
        assert_eq!(estimate_call("sum", "x", None, &[]), None);
        assert_eq!(
            estimate_call("_==_", "equals", None, &[lit(&s, 1), lit(&s, 1)]),
            None
        );
    }

    #[test]
    fn runtime_costs_from_the_kubernetes_tables() {
        let c = cidr::string_to_cidr(&Value::from("192.168.0.0/16")).unwrap();
        let i = ip::string_to_ip(&Value::from("192.169.169.250")).unwrap();
        assert_eq!(
            call_cost(
                "containsIP",
                "cidr_contains_ip_ip",
                &[&c, &i],
                &Value::Bool(false)
            ),
            Some(1)
        );
        assert_eq!(
            call_cost("ip", "string_to_ip", &[&Value::from("192.169.169.250")], &i),
            Some(2)
        );
        assert_eq!(
            call_cost(
                "containsCIDR",
                "cidr_contains_cidr",
                &[&c, &c],
                &Value::Bool(true)
            ),
            Some(3)
        );
        let v6 = ip::string_to_ip(&Value::from("2001:db8::1")).unwrap();
        assert_eq!(actual_size(&v6), 16);
        assert_eq!(actual_size(&c), 2);
        // Traversal truncates: 50 chars → 5; ints count 1 each.
        assert_eq!(
            call_cost(
                "indexOf",
                "string_index_of_string",
                &[&Value::from("x".repeat(59)), &Value::from("1")],
                &Value::Int(-1)
            ),
            Some(5)
        );
        let five = Value::list((1..=5).map(Value::Int).collect());
        assert_eq!(
            call_cost("sum", "list_int_sum_int", &[&five], &Value::Int(15)),
            Some(5)
        );
        // validate uses the format's own regex size: dns1123Subdomain 60 → 15; "my-name" → ⌈0.8⌉ = 1.
        let f = format::named(&Value::from("dns1123Subdomain")).unwrap();
        let Value::Optional(Some(f)) = f else {
            panic!()
        };
        assert_eq!(
            call_cost(
                "validate",
                "format-validate",
                &[&*f, &Value::from("my-name")],
                &Value::optional_none()
            ),
            Some(15)
        );
        let q = quantity::string_to_quantity(&Value::from("1")).unwrap();
        assert_eq!(
            call_cost("_==_", "equals", &[&q, &q], &Value::Bool(true)),
            Some(1)
        );
        assert_eq!(
            call_cost(
                "_==_",
                "equals",
                &[&Value::Int(1), &Value::Int(1)],
                &Value::Bool(true)
            ),
            None
        );
        assert_eq!(
            call_cost("check", "pathcheck_check", &[], &Value::Null),
            Some(350_000)
        );
    }

    #[test]
    fn selector_formula() {
        // 10 + ⌈0.1·L⌉ + ⌈⌈0.5·L⌉·50⌉ with L = 7: 10 + 1 + 200.
        assert_eq!(selector_cost(range(7, 7)), range(211, 211));
    }
}
