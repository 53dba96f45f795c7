//! The tag of a container image reference, as `k8s.io/kubernetes/pkg/util/parsers`
//! `ParseImageName` finds it through `github.com/distribution/reference`
//! `ParseNormalizedNamed` (`reference/normalize.go`, `reference.go`, `regexp.go`): the tag
//! written, `latest` when neither tag nor digest is, `None` when the reference does not parse.

use std::sync::LazyLock;

use regex::Regex;

/// `ReferenceRegexp` (anchored): name (with an optional domain and port), tag, digest.
static REFERENCE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    let alpha_numeric = "[a-z0-9]+";
    let separator = "(?:[._]|__|[-]+)";
    let name_component = format!("{alpha_numeric}(?:{separator}{alpha_numeric})*");
    let domain_component = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
    let domain = format!(
        r"(?:{domain_component}(?:\.{domain_component})*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?"
    );
    let name = format!("(?:{domain}/)?{name_component}(?:/{name_component})*");
    let tag = r"[\w][\w.-]{0,127}";
    let digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}";
    Regex::new(&format!("^({name})(?::({tag}))?(?:@({digest}))?$")).ok()
});

/// `anchoredIdentifierRegexp`: a bare 64-hex image ID, not a reference.
fn is_identifier(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `NameTotalLengthMax`.
const NAME_TOTAL_LENGTH_MAX: usize = 255;

/// `splitDockerDomain`: the domain (`docker.io` by default, official images under
/// `library/`) and the rest.
fn split_docker_domain(name: &str) -> (String, String) {
    let (mut domain, mut remainder) = match name.split_once('/') {
        Some((first, rest))
            if first.contains(['.', ':'])
                || first == "localhost"
                || first.to_lowercase() != first =>
        {
            (first.to_string(), rest.to_string())
        }
        _ => ("docker.io".to_string(), name.to_string()),
    };
    if domain == "index.docker.io" {
        domain = "docker.io".into();
    }
    if domain == "docker.io" && !remainder.contains('/') {
        remainder = format!("library/{remainder}");
    }
    (domain, remainder)
}

/// `digest.Parse`'s check of an `algorithm:hex` digest: a known algorithm and its length.
fn digest_valid(digest: &str) -> bool {
    let Some((algorithm, hex)) = digest.split_once(':') else {
        return false;
    };
    let size = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return false,
    };
    hex.len() == size
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The tag `ParseImageName` returns for `image`: `None` when it does not parse (the defaulter
/// ignores the error), `Some("latest")` without tag and digest.
pub(crate) fn image_tag(image: &str) -> Option<String> {
    if is_identifier(image) {
        return None;
    }
    let (domain, remainder) = split_docker_domain(image);
    let remote_name = remainder.split(':').next().unwrap_or("");
    if remote_name.to_lowercase() != remote_name {
        return None;
    }
    let full = format!("{domain}/{remainder}");
    let m = REFERENCE.as_ref()?.captures(&full)?;
    if m.get(1).map_or(0, |n| n.as_str().len()) > NAME_TOTAL_LENGTH_MAX {
        return None;
    }
    if let Some(d) = m.get(3)
        && !digest_valid(d.as_str())
    {
        return None;
    }
    match (m.get(2), m.get(3)) {
        (Some(tag), _) => Some(tag.as_str().to_string()),
        (None, Some(_)) => Some(String::new()),
        (None, None) => Some("latest".to_string()),
    }
}
