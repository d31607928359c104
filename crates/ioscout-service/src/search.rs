//! Local lexical search (`rag_search`) over what ioscout ships: the citation catalog, the
//! strategy catalog and every rule's documentation. Ranked by BM25 (k1 = 1.2, b = 0.75) over
//! lower-cased alphanumeric tokens; no embeddings, no network.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::sync::OnceLock;

use ioscout_advise::Catalog;
use serde::Serialize;

use crate::{Outcome, Result, ServiceError};

/// One searchable document.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Document {
    /// Stable id: the citation id, the strategy id, or the rule code.
    pub id: String,
    /// `paper` (a citation), `strategy` or `rule`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Title.
    pub title: String,
    /// Authors, for citations.
    pub authors: String,
    /// Year, for citations.
    pub year: Option<u32>,
    /// Where it comes from (venue, rule family, strategy layer).
    pub source: String,
    /// A link, when one.
    pub url: Option<String>,
    /// The text searched and returned.
    pub chunk: String,
}

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
    pub matched_terms: Vec<&'a String>,
}

struct Library {
    documents: Vec<Document>,
    terms: Vec<HashMap<String, u32>>,
    lengths: Vec<f64>,
    document_frequency: HashMap<String, u32>,
    average_length: f64,
}

fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|character: char| !character.is_alphanumeric())
        .filter(|token| token.len() > 1)
        .map(str::to_lowercase)
}

fn documents() -> Result<Vec<Document>> {
    let catalog = Catalog::bundled()?;
    let mut documents = Vec::new();
    for (id, citation) in &catalog.citations {
        documents.push(Document {
            id: id.clone(),
            kind: "paper",
            title: citation.title.clone(),
            authors: citation.authors.clone(),
            year: citation.year,
            source: citation.venue.clone().unwrap_or_default(),
            url: citation.link(),
            chunk: format!(
                "{}. {}. {} {}. Dimensions: {}.",
                citation.title,
                citation.authors,
                citation.venue.clone().unwrap_or_default(),
                citation.year.map(|year| year.to_string()).unwrap_or_default(),
                citation.dimensions.join(", ")
            ),
        });
    }
    for strategy in &catalog.strategies {
        let citation = catalog.citation(strategy);
        documents.push(Document {
            id: strategy.id.clone(),
            kind: "strategy",
            title: strategy.name.clone(),
            authors: String::new(),
            year: None,
            source: format!("{} {}", strategy.layer, strategy.dimension),
            url: citation.and_then(ioscout_advise::Citation::link),
            chunk: format!(
                "{}: {} Change: {} Rollback: {} Answers: {}. File systems: {}.",
                strategy.name,
                strategy.description,
                strategy.change,
                strategy.rollback,
                strategy.answers.join(", "),
                strategy.fs_types.join(", ")
            ),
        });
    }
    let mut seen = BTreeSet::new();
    let trace = ioscout_diagnose::rules::all().iter().map(|rule| rule.doc());
    let darshan = ioscout_diagnose::darshan::rules::all().iter().map(|rule| rule.doc());
    for doc in trace.chain(darshan) {
        if !seen.insert(doc.code) {
            continue;
        }
        documents.push(Document {
            id: doc.code.to_string(),
            kind: "rule",
            title: doc.title.to_string(),
            authors: String::new(),
            year: None,
            source: doc.family.name().to_string(),
            url: None,
            chunk: format!(
                "{} Detects: {} Why: {} Evidence: {} Thresholds: {} Change: {} Not when: {} References: {}",
                doc.title,
                doc.detects,
                doc.why,
                doc.evidence,
                doc.thresholds,
                doc.change,
                doc.not_when,
                doc.references
            ),
        });
    }
    Ok(documents)
}

fn library() -> Result<&'static Library> {
    static LIBRARY: OnceLock<Library> = OnceLock::new();
    if let Some(library) = LIBRARY.get() {
        return Ok(library);
    }
    let documents = documents()?;
    let mut terms = Vec::with_capacity(documents.len());
    let mut lengths = Vec::with_capacity(documents.len());
    let mut document_frequency: HashMap<String, u32> = HashMap::new();
    for document in &documents {
        let mut counts: HashMap<String, u32> = HashMap::new();
        let mut length = 0_u32;
        for token in tokens(&format!("{} {} {}", document.id, document.title, document.chunk)) {
            *counts.entry(token).or_default() += 1;
            length += 1;
        }
        for term in counts.keys() {
            *document_frequency.entry(term.clone()).or_default() += 1;
        }
        terms.push(counts);
        lengths.push(f64::from(length));
    }
    let average_length = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
    Ok(LIBRARY.get_or_init(|| Library { documents, terms, lengths, document_frequency, average_length }))
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
    let library = library()?;
    let text = format!("{} {} {}", request.query, request.bottleneck, request.system_config);
    let query: BTreeSet<String> = tokens(&text).collect();
    if query.is_empty() {
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
    let top_k = request.top_k.clamp(1, 50);
    let total = library.documents.len() as f64;
    let mut scored: Vec<(f64, usize, Vec<&String>)> = Vec::new();
    for (index, counts) in library.terms.iter().enumerate() {
        if kind.is_some_and(|kind| library.documents[index].kind != kind) {
            continue;
        }
        let mut score = 0.0;
        let mut matched = Vec::new();
        for term in &query {
            let Some(&frequency) = counts.get(term) else { continue };
            let documents_with = f64::from(library.document_frequency.get(term).copied().unwrap_or(0));
            let idf = ((total - documents_with + 0.5) / (documents_with + 0.5) + 1.0).ln();
            let frequency = f64::from(frequency);
            let norm = 1.2 * (0.25 + 0.75 * library.lengths[index] / library.average_length);
            score += idf * frequency * 2.2 / (frequency + norm);
            matched.push(term);
        }
        if score > 0.0 {
            scored.push((score, index, matched));
        }
    }
    scored.sort_by(|left, right| right.0.total_cmp(&left.0).then(left.1.cmp(&right.1)));
    scored.truncate(top_k);
    let mut rendered = String::new();
    let results: Vec<Scored> = scored
        .into_iter()
        .filter_map(|(score, index, matched_terms)| {
            let document = library.documents.get(index)?;
            let _ =
                writeln!(rendered, "{score:6.2}  [{}] {}: {}", document.kind, document.id, document.title);
            Some(Scored {
                document,
                combined_score: score,
                lexical_score: score,
                semantic_score: None,
                matched_terms,
            })
        })
        .collect();
    if results.is_empty() {
        rendered.push_str("no matches\n");
    }
    let result = SearchResult {
        status: "ok",
        embeddings_available: false,
        count: results.len(),
        library_size: library.documents.len(),
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
