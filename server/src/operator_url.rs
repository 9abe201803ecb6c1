//! The check of a base URL the operator points a service at (the remote parsers, the
//! search services): the configuration refuses one that could not be called safely.

/// Checks a base URL the operator points a service at (`HEARTH_MINERU_BASE_URL`,
/// `HEARTH_LLAMA_PARSE_BASE_URL`, the search services' bases): http or https, a host, no credentials, query or
/// fragment, and allowed by the operator's URL policy (cloud metadata never is).
pub fn check_operator_base_url(base: &str) -> Result<(), String> {
    let url = reqwest::Url::parse(base.trim()).map_err(|e| format!("`{base}`: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!(
            "`{base}` must be an http:// or https:// URL with a host"
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!("`{base}` must not carry credentials"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!("`{base}` must not have a query or fragment"));
    }
    hearth_core::url_policy::UrlPolicy::local()
        .check_url(base)
        .map(|_| ())
        .map_err(|error| format!("`{base}` is not allowed: {error}"))
}
