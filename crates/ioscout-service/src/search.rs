//! Local lexical search (`rag_search`) over what ioscout ships: the citation catalog, the
//! strategy catalog and every rule's documentation, ranked by BM25 in
//! [`ioscout_advise::search`]. This checks the request and writes the result.

use std::fmt::Write as _;

pub use ioscout_advise::search::Document;
use ioscout_advise::search::Hit;
use serde::Serialize;

use crate::{Outcome, Result, ServiceError};

/// The documents that match a query, best first.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SearchResult<'a> {
    /// Always `ok`.
    pub status: &'static str,
    /// Whether semantic (embedding) scores were computed: never, the search is lexical.
    pub embeddings_available: bool,
    /// Documents returned.
    pub count: usize,
    /// Documents in the library.
    pub library_size: usize,
    /// The documents, best first.
    pub results: Vec<Scored<'a>>,
}

/// A document with its score.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Scored<'a> {
    /// The document.
    #[serde(flatten)]
    pub document: &'a Document,
    /// The score results are ranked by (the lexical one).
    pub combined_score: f64,
    /// BM25 over the document's text.
    pub lexical_score: f64,
    /// Always `null`: no embeddings.
    pub semantic_score: Option<f64>,
    /// The query's terms found in the document.
    pub matched_terms: Vec<String>,
}

/// What to search for.
#[derive(Clone, Debug, Default)]
pub struct SearchRequest {
    /// Free text.
    pub query: String,
    /// A bottleneck (rule code or words) to add to the query.
    pub bottleneck: String,
    /// System description (file system, machine) to add to the query.
    pub system_config: String,
    /// Results wanted (1 to 50).
    pub top_k: usize,
    /// Only this kind: `paper`, `strategy` or `rule` (empty: all).
    pub resource_type: String,
}

/// The documents that best match, with their BM25 scores and matched terms.
pub fn search(request: &SearchRequest) -> Result<Outcome> {
    let text = format!("{} {} {}", request.query, request.bottleneck, request.system_config);
    if ioscout_advise::search::tokens(&text).next().is_none() {
        return Err(ServiceError::BadRequest("the query has no searchable words".into()));
    }
    let kind = request.resource_type.trim().to_ascii_lowercase();
    let kind = match kind.as_str() {
        "" => None,
        "paper" | "article" => Some("paper"),
        "strategy" => Some("strategy"),
        "rule" => Some("rule"),
        other => {
            return Err(ServiceError::BadRequest(format!(
                "unknown resource_type {other:?} (known: paper, strategy, rule)"
            )));
        }
    };
    let (library_size, hits) = ioscout_advise::search::search(&text, kind, request.top_k.clamp(1, 50))?;
    let mut rendered = String::new();
    let results: Vec<Scored> = hits
        .into_iter()
        .map(|Hit { score, document, matched_terms }| {
            let _ =
                writeln!(rendered, "{score:6.2}  [{}] {}: {}", document.kind, document.id, document.title);
            Scored {
                document,
                combined_score: score,
                lexical_score: score,
                semantic_score: None,
                matched_terms,
            }
        })
        .collect();
    if results.is_empty() {
        rendered.push_str("no matches\n");
    }
    let result = SearchResult {
        status: "ok",
        embeddings_available: false,
        count: results.len(),
        library_size,
        results,
    };
    Ok(Outcome::typed(&result, rendered))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(request: &SearchRequest) -> Vec<String> {
        search(request)
            .map(|outcome| {
                outcome.value["results"]
                    .as_array()
                    .map(|results| {
                        results
                            .iter()
                            .filter_map(|result| result["id"].as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .unwrap_or_default()
    }

    #[test]
    fn a_rule_code_finds_its_rule_first_and_kinds_filter() {
        let found = ids(&SearchRequest {
            query: "PIPE-OVERLAP-1 overlap".into(),
            top_k: 5,
            ..SearchRequest::default()
        });
        assert!(found.iter().any(|id| id == "PIPE-OVERLAP-1"), "{found:?}");
        let papers = search(&SearchRequest {
            query: "collective buffering".into(),
            top_k: 50,
            resource_type: "paper".into(),
            ..SearchRequest::default()
        });
        let papers = papers.map(|outcome| outcome.value).unwrap_or_default();
        assert!(
            papers["results"]
                .as_array()
                .is_some_and(|results| results.iter().all(|result| result["type"] == "paper"))
        );
    }

    #[test]
    fn empty_queries_and_unknown_kinds_are_bad_requests() {
        assert!(matches!(search(&SearchRequest::default()), Err(ServiceError::BadRequest(_))));
        let unknown = SearchRequest {
            query: "lustre".into(),
            resource_type: "video".into(),
            ..SearchRequest::default()
        };
        assert!(matches!(search(&unknown), Err(ServiceError::BadRequest(_))));
    }
}
