//! A question asked of an index one word at a time, for recall rather than search: a
//! question's words are not all in any one document (the engine's query matches every
//! word), so each worthwhile word is asked alone and each document's scores over the
//! words add up. Memory recall and knowledge retrieval both ask this way.

use std::collections::{HashMap, HashSet};

use super::token::{TokenKind, terms};
use super::{Query, SearchIndex, SearchOptions, Source};

/// The most words of a question asked about.
const MAX_QUESTION_WORDS: usize = 32;

/// Words too common to say what a question is about (English; Chinese and Japanese
/// are matched by character pairs, where the index's own weighting is enough).
const COMMON_WORDS: &[&str] = &[
    "a", "about", "am", "an", "and", "are", "as", "at", "be", "but", "by", "can", "could", "did",
    "do", "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "is", "it", "me",
    "my", "of", "on", "or", "should", "so", "that", "the", "this", "to", "was", "we", "what",
    "when", "where", "which", "who", "why", "will", "with", "would", "you", "your",
];

/// The distinct words of `question` worth asking about, in order.
pub fn question_words(question: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    terms(question)
        .into_iter()
        .filter(|(term, _, kind)| match kind {
            TokenKind::Word => term.chars().count() > 1 && !COMMON_WORDS.contains(&term.as_str()),
            TokenKind::Pair => true,
            TokenKind::Tail | TokenKind::Single => false,
        })
        .map(|(term, _, _)| term)
        .filter(|term| seen.insert(term.clone()))
        .take(MAX_QUESTION_WORDS)
        .collect()
}

/// Each document of `source` that any word of `question` finds, with its scores over
/// the words added up (by document id).
pub fn word_scores(index: &SearchIndex, source: Source, question: &str) -> HashMap<String, f32> {
    let options = SearchOptions {
        limit: super::MAX_LIMIT,
        sources: vec![source],
        title_only: false,
    };
    let mut scores: HashMap<String, f32> = HashMap::new();
    for word in question_words(question) {
        // Closed by a space: the word is matched whole and, from five letters, one
        // typo away (an open last word would be a prefix being typed).
        let Ok(query) = Query::parse(&format!("{word} ")) else {
            continue;
        };
        for hit in index.search(&query, &options).hits {
            *scores.entry(hit.id).or_default() += hit.score;
        }
    }
    scores
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Document;

    #[test]
    fn common_words_are_not_asked_and_each_word_is_asked_once() {
        assert_eq!(
            question_words("What is the boiling point of the water, the WATER?"),
            vec!["boiling", "point", "water"]
        );
        assert!(question_words("猫が好き").len() >= 2);
    }

    #[test]
    fn a_document_with_more_of_the_words_scores_higher() {
        let mut index = SearchIndex::new();
        for (id, body) in [
            ("both", "Kettles boil water quickly."),
            ("one", "Water is wet."),
            ("none", "Nothing here."),
        ] {
            index
                .upsert(&Document {
                    id: id.into(),
                    source: Source::Knowledge,
                    parent: "p".into(),
                    position: String::new(),
                    title: String::new(),
                    body: body.into(),
                    timestamp: 0,
                })
                .unwrap();
        }
        index.compact(Source::Knowledge);
        let scores = word_scores(&index, Source::Knowledge, "how do kettles boil the water?");
        assert!(scores["both"] > scores["one"]);
        assert!(!scores.contains_key("none"));
        assert!(word_scores(&index, Source::Memory, "water").is_empty());
    }
}
