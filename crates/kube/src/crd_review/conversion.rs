//! `spec.conversion` of a CRD on create (apiextensions `validation.go`:
//! `validateCustomResourceConversion`, `validateConversionReviewVersions`; the webhook client
//! checks of apiserver `pkg/util/webhook/validation.go`: `ValidateWebhookURL`,
//! `ValidateWebhookService`). Paths are the internal form's: the v1 `webhook.clientConfig`
//! is `webhookClientConfig`, `webhook.conversionReviewVersions` is `conversionReviewVersions`.
//!
//! The CA bundle is not checked: on create Kubernetes allows an invalid one
//! (`allowInvalidCABundle`).

use crate::crd::{CustomResourceDefinition, ServiceReference};
use crate::field::{BadValue, FieldError, Path};
use crate::name_validation::{is_dns1035_label, is_dns1123_subdomain};

/// ConversionReview versions the API server understands (`acceptedConversionReviewVersions`,
/// sorted as `sets.String.List` gives them).
const ACCEPTED_REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];

/// The errors of `spec.conversion` (`spec.conversion` absent defaults to strategy `None`).
pub fn validate_conversion(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(conv) = &crd.spec.conversion else {
        return errs;
    };
    let cp = Path::new("spec").child("conversion");
    if conv.strategy != "None" && crd.spec.preserve_unknown_fields {
        errs.push(FieldError::invalid(
            cp.child("strategy"),
            BadValue::String(conv.strategy.clone()),
            "must be None if spec.preserveUnknownFields is true",
        ));
    }
    match conv.strategy.as_str() {
        "" => errs.push(FieldError::required(cp.child("strategy"), "")),
        "None" | "Webhook" => {}
        other => errs.push(FieldError::not_supported(
            cp.child("strategy"),
            BadValue::String(other.to_string()),
            &["None".into(), "Webhook".into()],
        )),
    }
    let client = conv.webhook.as_ref().and_then(|w| w.client_config.as_ref());
    let review_versions = conv
        .webhook
        .as_ref()
        .map_or(&[][..], |w| &w.conversion_review_versions[..]);
    let ccp = cp.child("webhookClientConfig");
    if conv.strategy != "Webhook" {
        if client.is_some() {
            errs.push(FieldError::forbidden(
                ccp,
                "should not be set when strategy is not set to Webhook",
            ));
        }
        if !review_versions.is_empty() {
            errs.push(FieldError::forbidden(
                cp.child("conversionReviewVersions"),
                "should not be set when strategy is not set to Webhook",
            ));
        }
        return errs;
    }
    match client {
        None => errs.push(FieldError::required(
            ccp,
            "required when strategy is set to Webhook",
        )),
        Some(cc) => match (&cc.url, &cc.service) {
            (Some(url), None) => errs.extend(validate_webhook_url(&ccp.child("url"), url)),
            (None, Some(svc)) => errs.extend(validate_webhook_service(&ccp.child("service"), svc)),
            _ => errs.push(FieldError::required(
                ccp,
                "exactly one of url or service is required",
            )),
        },
    }
    errs.extend(validate_review_versions(
        review_versions,
        &cp.child("conversionReviewVersions"),
    ));
    errs
}

/// `validateConversionReviewVersions` with a recognised version required (create).
fn validate_review_versions(versions: &[String], path: &Path) -> Vec<FieldError> {
    if versions.is_empty() {
        return vec![FieldError::required(path.clone(), "")];
    }
    let mut errs = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, v) in versions.iter().enumerate() {
        if !seen.insert(v.as_str()) {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::String(v.clone()),
                "duplicate version",
            ));
            continue;
        }
        for e in is_dns1035_label(v) {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::String(v.clone()),
                e,
            ));
        }
    }
    if !versions
        .iter()
        .any(|v| ACCEPTED_REVIEW_VERSIONS.contains(&v.as_str()))
    {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Json(serde_json::json!(versions)),
            format!(
                "must include at least one of {}",
                ACCEPTED_REVIEW_VERSIONS.join(", ")
            ),
        ));
    }
    errs
}

/// `ValidateWebhookService`. Kubernetes calls it with the service's name and namespace in the
/// other order than it declares them (kubernetes/kubernetes#141353), so a missing name is
/// reported at `namespace` and a missing namespace at `name`; reproduced.
fn validate_webhook_service(path: &Path, svc: &ServiceReference) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let (declared_namespace, declared_name) = (&svc.name, &svc.namespace);
    if declared_name.is_empty() {
        errs.push(FieldError::required(path.child("name"), ""));
    }
    if declared_namespace.is_empty() {
        errs.push(FieldError::required(path.child("namespace"), ""));
    }
    let port = svc.port.unwrap_or(443);
    if !(1..=65535).contains(&port) {
        errs.push(FieldError::invalid(
            path.child("port"),
            BadValue::Int(i64::from(port)),
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    let Some(url_path) = &svc.path else {
        return errs;
    };
    if url_path.is_empty() || url_path == "/" {
        return errs;
    }
    let bad = |detail: String| {
        FieldError::invalid(
            path.child("path"),
            BadValue::String(url_path.clone()),
            detail,
        )
    };
    if url_path == "//" {
        errs.push(bad("segment[0] may not be empty".into()));
        return errs;
    }
    if !url_path.starts_with('/') {
        errs.push(bad("must start with a '/'".into()));
    }
    // Go slices off the first byte whether or not it is the '/'.
    let mut rest = url_path.get(1..).unwrap_or("");
    rest = rest.strip_suffix('/').unwrap_or(rest);
    for (i, step) in rest.split('/').enumerate() {
        if step.is_empty() {
            errs.push(bad(format!("segment[{i}] may not be empty")));
            continue;
        }
        for failure in is_dns1123_subdomain(step) {
            errs.push(bad(format!("segment[{i}]: {failure}")));
        }
    }
    errs
}

/// The parts of a URL `ValidateWebhookURL` looks at, split as Go's `url.Parse` splits them.
struct UrlParts<'a> {
    scheme: String,
    host: &'a str,
    user: Option<&'a str>,
    query: &'a str,
    fragment: &'a str,
}

/// Go's `url.Parse`, as far as the webhook checks need it: fragment, scheme, query, authority.
/// Errors are Go's for a control character and a missing scheme; host syntax is not checked.
fn split_url(raw: &str) -> Result<UrlParts<'_>, String> {
    let (rest, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    if rest.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err(format!(
            "parse {}: net/url: invalid control character in URL",
            crate::go::fmt::quote(raw)
        ));
    }
    let mut scheme = String::new();
    let mut after_scheme = rest;
    for (i, c) in rest.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if i > 0 => {}
            ':' if i == 0 => {
                return Err(format!(
                    "parse {}: missing protocol scheme",
                    crate::go::fmt::quote(raw)
                ));
            }
            ':' => {
                scheme = rest[..i].to_ascii_lowercase();
                after_scheme = &rest[i + 1..];
                break;
            }
            _ => break,
        }
    }
    let (rest, query) = if after_scheme.ends_with('?') && after_scheme.matches('?').count() == 1 {
        (&after_scheme[..after_scheme.len() - 1], "")
    } else {
        after_scheme.split_once('?').unwrap_or((after_scheme, ""))
    };
    let mut host = "";
    let mut user = None;
    if let Some(after) = rest.strip_prefix("//")
        && (!scheme.is_empty() || !rest.starts_with("///"))
    {
        let authority = after.split_once('/').map_or(after, |(a, _)| a);
        match authority.rsplit_once('@') {
            Some((u, h)) => {
                user = Some(u);
                host = h;
            }
            None => host = authority,
        }
    }
    Ok(UrlParts {
        scheme,
        host,
        user,
        query,
        fragment,
    })
}

/// `ValidateWebhookURL` with https required.
fn validate_webhook_url(path: &Path, url: &str) -> Vec<FieldError> {
    const FORM: &str = "; desired format: https://host[/path]";
    let u = match split_url(url) {
        Ok(u) => u,
        Err(e) => {
            return vec![FieldError::required(
                path.clone(),
                format!("url must be a valid URL: {e}{FORM}"),
            )];
        }
    };
    let mut errs = Vec::new();
    let invalid = |v: &str, detail: String| {
        FieldError::invalid(path.clone(), BadValue::String(v.to_string()), detail)
    };
    if u.scheme != "https" {
        errs.push(invalid(
            &u.scheme,
            format!("'https' is the only allowed URL scheme{FORM}"),
        ));
    }
    if u.host.is_empty() {
        errs.push(invalid(u.host, format!("host must be specified{FORM}")));
    }
    if let Some(user) = u.user {
        errs.push(invalid(
            user,
            "user information is not permitted in the URL".into(),
        ));
    }
    if !u.fragment.is_empty() {
        errs.push(invalid(
            u.fragment,
            "fragments are not permitted in the URL".into(),
        ));
    }
    if !u.query.is_empty() {
        errs.push(invalid(
            u.query,
            "query parameters are not permitted in the URL".into(),
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(conversion: serde_json::Value) -> Vec<String> {
        let crd: CustomResourceDefinition = serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "objects.example.com"},
            "spec": {"group": "example.com", "conversion": conversion}
        }))
        .expect("crd");
        validate_conversion(&crd)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn none_and_absent_pass() {
        assert!(errors(json!(null)).is_empty());
        assert!(errors(json!({"strategy": "None"})).is_empty());
    }

    #[test]
    fn webhook_service_without_name_or_namespace() {
        // crossplane-provider-kubernetes' `objects` CRD, rejected by Kubernetes 1.35.
        assert_eq!(
            errors(json!({"strategy": "Webhook", "webhook": {
                "clientConfig": {"service": {"path": "/convert"}},
                "conversionReviewVersions": ["v1"]}})),
            [
                "spec.conversion.webhookClientConfig.service.name: Required value",
                "spec.conversion.webhookClientConfig.service.namespace: Required value"
            ]
        );
        // The swapped arguments: a missing name is reported at `namespace`.
        assert_eq!(
            errors(json!({"strategy": "Webhook", "webhook": {
                "clientConfig": {"service": {"namespace": "ns", "port": 0}},
                "conversionReviewVersions": ["v1"]}})),
            [
                "spec.conversion.webhookClientConfig.service.namespace: Required value",
                "spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive"
            ]
        );
    }

    #[test]
    fn strategy_client_config_and_review_versions() {
        assert_eq!(
            errors(json!({"strategy": "Webhook"})),
            [
                "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
                "spec.conversion.conversionReviewVersions: Required value"
            ]
        );
        assert_eq!(
            errors(
                json!({"strategy": "Other", "webhook": {"conversionReviewVersions": ["v2", "v2"]}})
            ),
            [
                "spec.conversion.strategy: Unsupported value: \"Other\": supported values: \"None\", \"Webhook\"",
                "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook"
            ]
        );
        assert_eq!(
            errors(json!({"strategy": "Webhook", "webhook": {
                "clientConfig": {"url": "http://u@h/x?q=1#f"},
                "conversionReviewVersions": ["v2", "v2"]}})),
            [
                "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
                "spec.conversion.webhookClientConfig.url: Invalid value: \"u\": user information is not permitted in the URL",
                "spec.conversion.webhookClientConfig.url: Invalid value: \"f\": fragments are not permitted in the URL",
                "spec.conversion.webhookClientConfig.url: Invalid value: \"q=1\": query parameters are not permitted in the URL",
                "spec.conversion.conversionReviewVersions[1]: Invalid value: \"v2\": duplicate version",
                "spec.conversion.conversionReviewVersions: Invalid value: [\"v2\",\"v2\"]: must include at least one of v1, v1beta1"
            ]
        );
    }

    #[test]
    fn service_paths() {
        let svc = |p: &str| ServiceReference {
            namespace: "ns".into(),
            name: "n".into(),
            path: Some(p.into()),
            port: None,
        };
        let path = Path::new("s");
        let texts = |p: &str| -> Vec<String> {
            validate_webhook_service(&path, &svc(p))
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert!(texts("/a/b.c/").is_empty());
        assert_eq!(
            texts("//"),
            ["s.path: Invalid value: \"//\": segment[0] may not be empty"]
        );
        assert_eq!(
            texts("a/b"),
            [
                "s.path: Invalid value: \"a/b\": must start with a '/'",
                "s.path: Invalid value: \"a/b\": segment[0] may not be empty"
            ]
        );
        let bad = texts("/x//B");
        assert_eq!(
            bad[0],
            "s.path: Invalid value: \"/x//B\": segment[1] may not be empty"
        );
        assert!(bad[1].starts_with(
            "s.path: Invalid value: \"/x//B\": segment[2]: a lowercase RFC 1123 subdomain"
        ));
        assert_eq!(bad.len(), 2);
    }
}
