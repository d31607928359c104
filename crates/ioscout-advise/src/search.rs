//! Local lexical search (the MCP tool `rag_search`) over what ioscout ships: the citation
//! catalog, the strategy catalog and every rule's documentation, each one document. Ranked by
//! BM25 (k1 = 1.2, b = 0.75) over lower-cased alphanumeric tokens; no embeddings, no network.
//! The library is built once, on first use. The service checks requests and writes results.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use serde::Serialize;

use crate::catalog::{Catalog, CatalogError};

/// One searchable document.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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

/// The documents with their term counts, lengths and document frequencies.
struct Library {
    documents: Vec<Document>,
    terms: Vec<HashMap<String, u32>>,
    lengths: Vec<f64>,
    document_frequency: HashMap<String, u32>,
    average_length: f64,
}

fn documents() -> Result<Vec<Document>, CatalogError> {
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
            url: citation.and_then(crate::Citation::link),
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

/// The library of every document, built on first use.
fn library() -> Result<&'static Library, CatalogError> {
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

/// A document that matches, with its score and the query's terms it holds.
#[derive(Clone, Debug)]
pub struct Hit {
    /// BM25 over the document's id, title and text.
    pub score: f64,
    /// The document.
    pub document: &'static Document,
    /// The query's terms found in the document.
    pub matched_terms: Vec<String>,
}

/// Lower-cased alphanumeric tokens of two characters or more: what is indexed and searched.
pub fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|character: char| !character.is_alphanumeric())
        .filter(|token| token.len() > 1)
        .map(str::to_lowercase)
}

/// The `top_k` documents that best match `text` (of `kind` only: `paper`, `strategy` or `rule`,
/// when given), best first (then in library order), and the number of documents in the library.
pub fn search(text: &str, kind: Option<&str>, top_k: usize) -> Result<(usize, Vec<Hit>), CatalogError> {
    let library = library()?;
    let query: BTreeSet<String> = tokens(text).collect();
    let total = library.documents.len() as f64;
    let mut scored: Vec<(f64, usize, Vec<String>)> = Vec::new();
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
            matched.push(term.clone());
        }
        if score > 0.0 {
            scored.push((score, index, matched));
        }
    }
    scored.sort_by(|left, right| right.0.total_cmp(&left.0).then(left.1.cmp(&right.1)));
    scored.truncate(top_k);
    let hits = scored
        .into_iter()
        .filter_map(|(score, index, matched_terms)| {
            Some(Hit { score, document: library.documents.get(index)?, matched_terms })
        })
        .collect();
    Ok((library.documents.len(), hits))
}
