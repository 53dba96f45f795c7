//! Kubernetes' CEL libraries (lists, regex, urls, quantity, ip, cidr, format, semver).
