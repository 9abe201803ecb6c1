//! A deterministic corpus for the search benchmark: conversations of messages in mixed
//! English (with code identifiers, versions and numbers), Chinese and Japanese, and a
//! fixed set of queries drawn from it.
//!
//! Words follow a Zipf-like law (ranks drawn log-uniformly) over a vocabulary of common
//! English and technical words padded with synthetic words, so there are frequent terms
//! with long posting lists and a long tail of rare ones, as in real chats. The same seed
//! gives the same bytes on every machine.

use hearth_core::search::{Document, Source};

/// xorshift64*: small, fast, deterministic.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value).
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.bits() % n.max(1) as u64) as usize
    }

    /// A rank in `0..n`, small ranks far more likely (log-uniform, roughly Zipf).
    pub fn zipf(&mut self, n: usize) -> usize {
        let u = (self.bits() >> 11) as f64 / (1u64 << 53) as f64;
        (((n as f64 + 1.0).powf(u)) as usize)
            .saturating_sub(1)
            .min(n - 1)
    }
}

const COMMON: &str = "the be to of and a in that have i it for not on with he as you do at this but \
his by from they we say her she or an will my one all would there their what so up out if about \
who get which go me when make can like time no just him know take people into year your good some \
could them see other than then now look only come its over think also back after use two how our \
work first well way even new want because any these give day most us is are was were been has had \
did does code rust function error type value return string number file list data test build run \
server client request response message model token stream index search query result version update \
change add remove fix bug issue memory thread async await future trait struct enum impl match option \
vector array map key cache config setting user browser worker page render component state signal \
event handler callback promise timeout retry network http json parse format output input read write";

const SYLLABLES: &[&str] = &[
    "ka", "ri", "to", "mo", "ne", "sa", "lu", "vi", "pre", "con", "dis", "ter", "ment", "ing",
    "ate", "ion", "al", "ous", "ly", "er", "st", "tr", "bl", "qu", "ph", "ex", "un", "re", "de",
    "ba", "po", "ze", "gi", "fa", "wo", "ch", "sh", "th", "ck",
];

/// Common Han characters (Chinese and Japanese kanji).
const HAN: &str = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会\
自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本\
见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情\
部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内\
加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应\
路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特\
觉望直服毛林题建南度统色字请交爱让认算论百吧某谁习器械研究模型语言处理数据网络服务";

const HIRAGANA: &str = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん\
がぎぐげござじずぜぞだでどばびぶべぼ";

const KATAKANA_WORDS: &[&str] = &[
    "データ",
    "サーバー",
    "ブラウザ",
    "モデル",
    "テスト",
    "エラー",
    "コード",
    "ファイル",
    "メモリ",
    "カタカナ",
    "インデックス",
    "クエリ",
    "ストリーム",
    "バージョン",
];

const PARTICLES: &[&str] = &[
    "は", "が", "を", "に", "で", "と", "の", "も", "から", "まで",
];

/// The generated messages and the vocabulary they were drawn from.
pub struct Corpus {
    /// Every message, in conversation order.
    pub documents: Vec<Document>,
    /// English and synthetic words by rank (most frequent first).
    pub vocabulary: Vec<String>,
    /// Bytes of title and body text indexed.
    pub text_bytes: usize,
}

fn vocabulary(size: usize, rng: &mut Rng) -> Vec<String> {
    let mut words: Vec<String> = COMMON.split_whitespace().map(String::from).collect();
    let mut seen: std::collections::HashSet<String> = words.iter().cloned().collect();
    while words.len() < size {
        let parts = 2 + rng.below(3);
        let word: String = (0..parts)
            .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
            .collect();
        if seen.insert(word.clone()) {
            words.push(word);
        }
    }
    words
}

fn english(rng: &mut Rng, vocab: &[String], words: usize, out: &mut String) {
    for i in 0..words {
        if i > 0 {
            out.push(if rng.below(14) == 0 { '\n' } else { ' ' });
        }
        match rng.below(40) {
            0 => {
                let a = &vocab[rng.zipf(vocab.len())];
                let b = &vocab[rng.zipf(vocab.len())];
                out.push_str(&format!("{a}_{b}"));
            }
            1 => {
                let a = &vocab[rng.zipf(vocab.len())];
                let b = &vocab[rng.zipf(vocab.len())];
                let cap = |w: &str| {
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_uppercase().chain(c).collect::<String>())
                        .unwrap_or_default()
                };
                out.push_str(&format!("{}{}", cap(a), cap(b)));
            }
            2 => out.push_str(&format!(
                "v{}.{}.{}",
                rng.below(4),
                rng.below(20),
                rng.below(30)
            )),
            3 => out.push_str(&rng.below(100_000).to_string()),
            _ => {
                let w = &vocab[rng.zipf(vocab.len())];
                if rng.below(12) == 0 {
                    let mut c = w.chars();
                    if let Some(f) = c.next() {
                        out.extend(f.to_uppercase());
                        out.push_str(c.as_str());
                    }
                } else {
                    out.push_str(w);
                }
                if rng.below(10) == 0 {
                    out.push(if rng.below(2) == 0 { ',' } else { '.' });
                }
            }
        }
    }
}

fn chinese(rng: &mut Rng, han: &[char], chars: usize, out: &mut String) {
    for i in 0..chars {
        out.push(han[rng.zipf(han.len())]);
        if i % 17 == 16 {
            out.push(if rng.below(3) == 0 { '。' } else { '，' });
        }
    }
}

fn japanese(rng: &mut Rng, han: &[char], kana: &[char], chars: usize, out: &mut String) {
    let mut n = 0;
    while n < chars {
        match rng.below(4) {
            0 => out.push_str(KATAKANA_WORDS[rng.below(KATAKANA_WORDS.len())]),
            1 => out.push_str(PARTICLES[rng.below(PARTICLES.len())]),
            2 => (0..1 + rng.below(3)).for_each(|_| out.push(kana[rng.below(kana.len())])),
            _ => (0..1 + rng.below(3)).for_each(|_| out.push(han[rng.zipf(han.len())])),
        }
        n += 3;
        if rng.below(8) == 0 {
            out.push('。');
        }
    }
}

/// `conversations × per_conversation` messages, about 500 bytes each.
pub fn generate(conversations: usize, per_conversation: usize, seed: u64) -> Corpus {
    let mut rng = Rng::new(seed);
    let vocab = vocabulary(30_000, &mut rng);
    let han: Vec<char> = HAN.chars().collect();
    let kana: Vec<char> = HIRAGANA.chars().collect();
    let mut documents = Vec::with_capacity(conversations * per_conversation);
    let mut text_bytes = 0;
    let mut timestamp = 1_700_000_000_000i64;
    for c in 0..conversations {
        let parent = format!("{:016x}", Rng::new(c as u64 + 1).bits());
        let lang = rng.below(10);
        let mut title = String::new();
        match lang {
            0 => chinese(&mut rng, &han, 6, &mut title),
            1 => japanese(&mut rng, &han, &kana, 6, &mut title),
            _ => {
                let words = 3 + rng.below(3);
                english(&mut rng, &vocab, words, &mut title)
            }
        }
        for m in 0..per_conversation {
            let id = format!(
                "{:016x}",
                Rng::new((c * per_conversation + m) as u64 + 7).bits()
            );
            let mut body = String::new();
            let size = 40 + rng.below(100);
            match (lang, rng.below(10)) {
                (0, 0..=6) | (2..=9, 0) => chinese(&mut rng, &han, size * 2, &mut body),
                (1, 0..=6) | (2..=9, 1) => japanese(&mut rng, &han, &kana, size * 2, &mut body),
                _ => english(&mut rng, &vocab, size, &mut body),
            }
            timestamp += 1 + rng.below(120_000) as i64;
            text_bytes += title.len() + body.len();
            documents.push(Document {
                id: id.clone(),
                source: Source::Conversations,
                parent: parent.clone(),
                position: id,
                title: title.clone(),
                body,
                timestamp,
            });
        }
    }
    Corpus {
        documents,
        vocabulary: vocab,
        text_bytes,
    }
}

/// The kinds of query measured.
pub const KINDS: &[&str] = &[
    "word",
    "two words",
    "prefix",
    "typo",
    "phrase",
    "CJK",
    "identifier",
];

/// A fixed query set drawn from `corpus`: `(kind, query)`, 20 of each kind.
pub fn queries(corpus: &Corpus, seed: u64) -> Vec<(&'static str, String)> {
    let mut rng = Rng::new(seed);
    let vocab = &corpus.vocabulary;
    let mut out = Vec::new();
    let long = |rng: &mut Rng| loop {
        let w = &vocab[rng.zipf(vocab.len()).min(5_000)];
        if w.chars().count() >= 6 {
            return w.clone();
        }
    };
    for i in 0..20 {
        // Frequent, middling and rare words.
        let rank = [i, 50 + i * 20, 1_000 + i * 500][i % 3];
        out.push(("word", format!("{} ", vocab[rank])));
        let (a, b) = (&vocab[rng.zipf(2_000)], &vocab[rng.zipf(2_000)]);
        out.push(("two words", format!("{a} {b} ")));
        let w = long(&mut rng);
        out.push(("prefix", w.chars().take(2 + i % 3).collect()));
        let w: Vec<char> = long(&mut rng).chars().collect();
        let at = 1 + rng.below(w.len() - 2);
        let typo: String = match i % 3 {
            0 => w
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != at)
                .map(|(_, c)| c)
                .collect(),
            1 => {
                let mut v = w.clone();
                v.swap(at, at + 1);
                v.into_iter().collect()
            }
            _ => {
                let mut v = w.clone();
                v[at] = if v[at] == 'x' { 'z' } else { 'x' };
                v.into_iter().collect()
            }
        };
        out.push(("typo", format!("{typo} ")));
    }
    // Phrases, CJK strings and identifiers cut from real messages.
    let docs = &corpus.documents;
    while out.iter().filter(|(k, _)| *k == "phrase").count() < 20 {
        let body = &docs[rng.below(docs.len())].body;
        let words: Vec<&str> = body.split_whitespace().collect();
        if words.len() > 4 && words.iter().all(|w| w.is_ascii()) {
            let at = rng.below(words.len() - 2);
            let phrase: Vec<&str> = words[at..at + 2]
                .iter()
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
                .collect();
            out.push(("phrase", format!("\"{}\"", phrase.join(" "))));
        }
    }
    while out.iter().filter(|(k, _)| *k == "CJK").count() < 20 {
        let body = &docs[rng.below(docs.len())].body;
        let chars: Vec<char> = body.chars().collect();
        let len = 1 + rng.below(4);
        if chars.len() > 10 {
            let at = rng.below(chars.len() - len);
            let cut = &chars[at..at + len];
            if cut.iter().all(|&c| hearth_core::search::token::is_cjk(c)) {
                out.push(("CJK", cut.iter().collect()));
            }
        }
    }
    while out.iter().filter(|(k, _)| *k == "identifier").count() < 20 {
        let body = &docs[rng.below(docs.len())].body;
        if let Some(word) = body
            .split_whitespace()
            .find(|w| w.contains('_') || w.starts_with('v') && w.contains('.'))
        {
            out.push((
                "identifier",
                format!("{} ", word.trim_end_matches([',', '.'])),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_is_deterministic() {
        let a = generate(3, 4, 1);
        let b = generate(3, 4, 1);
        assert_eq!(a.documents, b.documents);
        assert_eq!(queries(&a, 2), queries(&b, 2));
        assert_eq!(a.documents.len(), 12);
    }
}
