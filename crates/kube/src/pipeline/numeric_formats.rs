//! Numeric formats (reference §2.5, §3.3, §10): from Kubernetes 1.36 apiextensions keeps
//! `int32`/`int64` on `type: integer` and `float`/`double` on `type: number` (every other
//! format on a non-string type is still stripped), and kube-openapi's number validator checks
//! the value, and the `multipleOf`/`maximum`/`minimum` bounds, against the range of the type
//! and format (go-openapi `IsValueValidAgainstRange`): `Checked value must be of type integer
//! with format int32 in spec.x`. Up to 1.35 numeric formats have no effect.

use crate::schema_props::JsonSchemaProps;
use crate::version::KubeVersion;

/// The first Kubernetes minor that enforces numeric formats.
pub const ENFORCED_SINCE: u32 = 36;

/// The numeric format apiextensions keeps on `schema` for `version`, as written.
pub fn kept_format(schema: &JsonSchemaProps, version: KubeVersion) -> Option<&str> {
    if !version.at_least(ENFORCED_SINCE) || schema.x_int_or_string {
        return None;
    }
    let format = schema.format.as_deref().filter(|f| !f.is_empty())?;
    // The format with its dashes removed (`int-32` is `int32`), compared without building it.
    let is = |name: &str| {
        format == name
            || (format.contains('-') && format.chars().filter(|&c| c != '-').eq(name.chars()))
    };
    let kept = match schema.type_.as_deref() {
        Some("integer") => is("int32") || is("int64"),
        Some("number") => is("float") || is("double"),
        _ => false,
    };
    kept.then_some(format)
}

/// The `Type` and `Format` kube-openapi's number validator gets for `schema`: the schema's
/// single type (empty for none or `x-kubernetes-int-or-string`) and the kept format. `None`
/// before 1.36, when no range is checked.
pub fn number_type_and_format(
    schema: &JsonSchemaProps,
    version: KubeVersion,
) -> Option<(&str, &str)> {
    if !version.at_least(ENFORCED_SINCE) {
        return None;
    }
    let type_ = if schema.x_int_or_string {
        ""
    } else {
        schema.type_.as_deref().unwrap_or("")
    };
    Some((type_, kept_format(schema, version).unwrap_or("")))
}

/// A number as go-openapi writes it before the range check: `strconv.FormatInt` for integers,
/// `strconv.FormatFloat(f, 'f', -1, 64)` for floats (shortest round-trip digits, no exponent).
pub enum Repr {
    Int(i64),
    Float(f64),
}

impl Repr {
    fn text(&self) -> String {
        match self {
            Repr::Int(i) => i.to_string(),
            // Rust's `Display` for f64 is the shortest round-trip decimal without exponent.
            Repr::Float(f) => f.to_string(),
        }
    }
}

/// `IsValueValidAgainstRange`: the error text when `value` does not fit `type_`/`format`.
/// `prefix` names what is checked (`Checked`, `MultipleOf`, `Maximum boundary`,
/// `Minimum boundary`), `path` is the kube-openapi path.
pub fn range_error(
    value: &Repr,
    type_: &str,
    format: &str,
    prefix: &str,
    path: &str,
) -> Option<String> {
    if fits(value, type_, format) {
        return None;
    }
    Some(if format.is_empty() {
        format!("{prefix} value must be of type {type_} (default format) in {path}")
    } else {
        format!("{prefix} value must be of type {type_} with format {format} in {path}")
    })
}

/// Whether `value` fits `type_`/`format`: whether its decimal text parses as the format's Go
/// type (`strconv.ParseInt`/`ParseUint`/`ParseFloat` in `IsValueValidAgainstRange`). The
/// text is built only where it cannot be told from the number (beyond 2^53, where it is the
/// shortest round-trip digits padded with zeros, and `float32`).
fn fits(value: &Repr, type_: &str, format: &str) -> bool {
    const TWO_31: f64 = 2_147_483_648.0;
    const TWO_32: f64 = 4_294_967_296.0;
    const TWO_53: f64 = 9_007_199_254_740_992.0;
    match (type_, value) {
        ("integer", Repr::Int(i)) => match format {
            "int32" => i32::try_from(*i).is_ok(),
            "uint32" => u32::try_from(*i).is_ok(),
            "uint64" => *i >= 0,
            _ => true,
        },
        // Below 2^53 a float's text is its exact digits, without a fraction when it has
        // none, `-0` for negative zero (which the unsigned parsers refuse).
        ("integer", Repr::Float(f)) if f.abs() < TWO_53 => {
            f.fract() == 0.0
                && match format {
                    "int32" => (-TWO_31..TWO_31).contains(f),
                    "uint32" => f.is_sign_positive() && *f < TWO_32,
                    "uint64" => f.is_sign_positive(),
                    _ => true,
                }
        }
        ("integer", value) => integer_text_fits(&value.text(), format),
        // `number` and anything else: only float32 has a range to check.
        (_, value) => match format {
            "float" | "float32" => value.text().parse::<f32>().is_ok_and(f32::is_finite),
            _ => true,
        },
    }
}

/// Whether the decimal `text` parses as the Go integer type of `format` (`int64` by default).
fn integer_text_fits(text: &str, format: &str) -> bool {
    match format {
        "int32" => text.parse::<i32>().is_ok(),
        "uint32" => text.parse::<u32>().is_ok(),
        "uint64" => text.parse::<u64>().is_ok(),
        _ => text.parse::<i64>().is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(type_: &str, format: &str) -> JsonSchemaProps {
        JsonSchemaProps {
            type_: Some(type_.into()),
            format: Some(format.into()),
            ..JsonSchemaProps::default()
        }
    }

    #[test]
    fn formats_kept_from_1_36_on_matching_types_only() {
        let v35 = KubeVersion::new(35).expect("supported");
        let v36 = KubeVersion::new(36).expect("supported");
        assert_eq!(kept_format(&schema("integer", "int32"), v35), None);
        assert_eq!(kept_format(&schema("integer", "int32"), v36), Some("int32"));
        assert_eq!(kept_format(&schema("integer", "int64"), v36), Some("int64"));
        assert_eq!(kept_format(&schema("number", "float"), v36), Some("float"));
        assert_eq!(
            kept_format(&schema("number", "double"), v36),
            Some("double")
        );
        assert_eq!(kept_format(&schema("number", "int32"), v36), None);
        assert_eq!(kept_format(&schema("integer", "float"), v36), None);
        assert_eq!(kept_format(&schema("integer", "uint32"), v36), None);
        assert_eq!(kept_format(&schema("string", "int32"), v36), None);
    }

    /// [`fits`] answers as parsing the value's text does.
    #[test]
    fn fits_as_the_text_parses() {
        let by_text = |value: &Repr, format: &str| integer_text_fits(&value.text(), format);
        let mut values: Vec<Repr> = [
            0,
            1,
            -1,
            i64::from(i32::MAX),
            i64::from(i32::MAX) + 1,
            i64::from(i32::MIN),
            i64::from(i32::MIN) - 1,
            i64::from(u32::MAX),
            i64::from(u32::MAX) + 1,
            i64::MAX,
            i64::MIN,
        ]
        .into_iter()
        .map(Repr::Int)
        .collect();
        values.extend(
            [
                0.0,
                -0.0,
                1.5,
                -1.0,
                2_147_483_647.0,
                2_147_483_648.0,
                -2_147_483_648.0,
                -2_147_483_649.0,
                4_294_967_295.0,
                4_294_967_296.0,
                9_223_372_036_854_775_808.0,
                -9_223_372_036_854_775_808.0,
                18_446_744_073_709_551_616.0,
                18_446_744_073_709_549_568.0,
                9_007_199_254_740_991.0,
                9_007_199_254_740_992.0,
                -9_007_199_254_740_991.0,
                -9_007_199_254_740_992.0,
                4_503_599_627_370_495.5,
                1e300,
                1e-300,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
            ]
            .into_iter()
            .map(Repr::Float),
        );
        for v in &values {
            for format in ["", "int32", "int64", "uint32", "uint64"] {
                assert_eq!(
                    fits(v, "integer", format),
                    by_text(v, format),
                    "{} {format}",
                    v.text()
                );
            }
        }
    }

    #[test]
    fn ranges() {
        let p = "spec.x";
        assert_eq!(
            range_error(&Repr::Int(2_147_483_647), "integer", "int32", "Checked", p),
            None
        );
        assert_eq!(
            range_error(&Repr::Int(2_147_483_648), "integer", "int32", "Checked", p).as_deref(),
            Some("Checked value must be of type integer with format int32 in spec.x")
        );
        assert_eq!(
            range_error(&Repr::Float(3.0), "integer", "", "Checked", p),
            None
        );
        assert_eq!(
            range_error(&Repr::Float(1.5), "integer", "", "Checked", p).as_deref(),
            Some("Checked value must be of type integer (default format) in spec.x")
        );
        assert!(range_error(&Repr::Float(1e19), "integer", "int64", "Checked", p).is_some());
        assert_eq!(
            range_error(&Repr::Float(-0.0), "integer", "int32", "Checked", p),
            None
        );
        assert_eq!(
            range_error(&Repr::Float(3.4e38), "number", "float", "Checked", p),
            None
        );
        assert_eq!(
            range_error(
                &Repr::Float(3.5e38),
                "number",
                "float",
                "Maximum boundary",
                p
            )
            .as_deref(),
            Some("Maximum boundary value must be of type number with format float in spec.x")
        );
        assert_eq!(
            range_error(&Repr::Float(1e300), "number", "double", "Checked", p),
            None
        );
        assert_eq!(
            range_error(&Repr::Float(1e300), "number", "", "Checked", p),
            None
        );
        assert_eq!(range_error(&Repr::Float(2.5), "", "", "Checked", p), None);
    }
}
