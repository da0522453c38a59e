//! The MOF syntax this reader needs: class declarations with their qualifiers and
//! properties. `instance of …`, `qualifier …` and method declarations are skipped; any other
//! statement is a syntax error naming its line.

use super::lex::{Tok, Token};

/// The most classes one file may declare.
pub const MAX_CLASSES: usize = 65_536;
/// The most properties one class may declare.
pub const MAX_PROPERTIES: usize = 1024;
/// The most qualifiers one list may hold.
pub const MAX_QUALIFIERS: usize = 256;
/// The most values one qualifier may hold (`ValueMap{…}`).
pub const MAX_QUALIFIER_VALUES: usize = 65_536;
/// How deep braces and parentheses may nest in what is skipped.
pub const MAX_NESTING: usize = 64;

/// A qualifier's value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum QValue {
    /// `read` (no value).
    None,
    /// A string (adjacent literals joined).
    Str(String),
    /// A number as written, with its sign.
    Num(String),
    /// `true`, `false`, `null` or another word.
    Word(String),
    /// `{a, b, c}`.
    List(Vec<QValue>),
}

impl QValue {
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            QValue::Str(s) | QValue::Word(s) => Some(s),
            QValue::List(l) if l.len() == 1 => l[0].as_str(),
            _ => None,
        }
    }

    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            QValue::Num(n) | QValue::Str(n) => parse_int(n),
            QValue::List(l) if l.len() == 1 => l[0].as_i64(),
            _ => None,
        }
    }

    /// The values of a list, or the one value.
    pub(crate) fn items(&self) -> Vec<&QValue> {
        match self {
            QValue::List(l) => l.iter().collect(),
            QValue::None => Vec::new(),
            v => vec![v],
        }
    }
}

/// A decimal or `0x` number, with an optional sign.
pub(crate) fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => i64::from_str_radix(h, 16).ok()?,
        None => t.parse::<i64>().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// Qualifiers by lower-case name.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Quals(pub(crate) Vec<(String, QValue)>);

impl Quals {
    pub(crate) fn get(&self, name: &str) -> Option<&QValue> {
        self.0
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    pub(crate) fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

/// A property declaration.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PropDecl {
    pub(crate) name: String,
    pub(crate) ty: String,
    /// `[]` → `Some(None)`, `[n]` → `Some(Some(n))`.
    pub(crate) array: Option<Option<u64>>,
    pub(crate) quals: Quals,
    pub(crate) line: u32,
}

/// A class declaration.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ClassDecl {
    pub(crate) name: String,
    pub(crate) parent: Option<String>,
    pub(crate) quals: Quals,
    pub(crate) props: Vec<PropDecl>,
    pub(crate) line: u32,
}

struct P<'a> {
    t: &'a [Token],
    i: usize,
}

type R<T> = Result<T, (u32, String)>;

impl P<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i).map(|t| &t.tok)
    }

    fn line(&self) -> u32 {
        self.t
            .get(self.i)
            .or_else(|| self.t.last())
            .map_or(1, |t| t.line)
    }

    fn err<T>(&self, what: impl Into<String>) -> R<T> {
        let found = match self.peek() {
            Some(Tok::Ident(s)) => format!("`{s}`"),
            Some(Tok::Str(s)) => format!("the string {:?}", s.chars().take(40).collect::<String>()),
            Some(Tok::Num(n)) => format!("the number {n}"),
            Some(Tok::Punct(c)) => format!("`{c}`"),
            None => "the end of the file".into(),
        };
        Err((self.line(), format!("{}, found {found}", what.into())))
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.t.get(self.i).map(|t| t.tok.clone());
        self.i += 1;
        t
    }

    fn punct(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char, what: &str) -> R<()> {
        if self.punct(c) {
            Ok(())
        } else {
            self.err(format!("expected `{c}` {what}"))
        }
    }

    fn ident(&mut self, what: &str) -> R<String> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.i += 1;
                Ok(s)
            }
            _ => self.err(format!("expected {what}")),
        }
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if s.eq_ignore_ascii_case(w))
    }

    /// `[q, q(v), q{v, v} : flavor, …]`.
    fn qualifiers(&mut self) -> R<Quals> {
        let mut out = Quals::default();
        if !self.punct('[') {
            return Ok(out);
        }
        if self.punct(']') {
            return Ok(out);
        }
        loop {
            if out.0.len() == MAX_QUALIFIERS {
                return self.err(format!("more than {MAX_QUALIFIERS} qualifiers in one list"));
            }
            let name = self.ident("a qualifier name")?;
            let value = if self.punct('(') {
                let v = self.value()?;
                self.expect(')', "after a qualifier's value")?;
                v
            } else if self.punct('{') {
                self.list()?
            } else {
                QValue::None
            };
            // Flavors: `: amended`, `: ToSubclass ToInstance`.
            if self.punct(':') {
                while matches!(self.peek(), Some(Tok::Ident(_))) {
                    self.i += 1;
                }
            }
            out.0.push((name, value));
            if self.punct(',') {
                continue;
            }
            self.expect(']', "to close the qualifier list")?;
            return Ok(out);
        }
    }

    /// `{v, v, …}` after its `{`.
    fn list(&mut self) -> R<QValue> {
        let mut items = Vec::new();
        if self.punct('}') {
            return Ok(QValue::List(items));
        }
        loop {
            if items.len() == MAX_QUALIFIER_VALUES {
                return self.err(format!(
                    "more than {MAX_QUALIFIER_VALUES} values in one list"
                ));
            }
            items.push(self.value()?);
            if self.punct(',') {
                continue;
            }
            self.expect('}', "to close a list of values")?;
            return Ok(QValue::List(items));
        }
    }

    /// A string (adjacent literals joined), a signed number, a word, or a list.
    fn value(&mut self) -> R<QValue> {
        match self.peek() {
            Some(Tok::Str(_)) => {
                let mut s = String::new();
                while let Some(Tok::Str(part)) = self.peek() {
                    s.push_str(part);
                    self.i += 1;
                }
                Ok(QValue::Str(s))
            }
            Some(Tok::Num(n)) => {
                let n = n.clone();
                self.i += 1;
                Ok(QValue::Num(n))
            }
            Some(Tok::Punct('-' | '+')) => {
                let sign = if self.punct('-') { "-" } else { "" };
                self.punct('+');
                match self.next() {
                    Some(Tok::Num(n)) => Ok(QValue::Num(format!("{sign}{n}"))),
                    _ => {
                        self.i -= 1;
                        self.err("expected a number after its sign")
                    }
                }
            }
            Some(Tok::Ident(w)) => {
                let w = w.clone();
                self.i += 1;
                Ok(QValue::Word(w))
            }
            Some(Tok::Punct('{')) => {
                self.i += 1;
                self.list()
            }
            _ => self.err("expected a value"),
        }
    }

    /// Skips a balanced `{…}` / `(…)` group starting at the current token.
    fn skip_group(&mut self) -> R<()> {
        let mut depth = 0usize;
        loop {
            match self.next() {
                Some(Tok::Punct('{' | '(' | '[')) => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        self.i -= 1;
                        return self.err(format!("nesting deeper than {MAX_NESTING}"));
                    }
                }
                Some(Tok::Punct('}' | ')' | ']')) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Some(_) => {}
                None => return self.err("expected the end of a block"),
            }
        }
    }

    /// Skips to the `;` ending the current statement, over balanced groups.
    fn skip_statement(&mut self) -> R<()> {
        loop {
            match self.peek() {
                Some(Tok::Punct(';')) => {
                    self.i += 1;
                    return Ok(());
                }
                Some(Tok::Punct('{' | '(' | '[')) => self.skip_group()?,
                Some(_) => self.i += 1,
                None => return self.err("expected `;`"),
            }
        }
    }

    fn class(&mut self, quals: Quals, line: u32) -> R<ClassDecl> {
        let name = self.ident("a class name")?;
        let parent = if self.punct(':') {
            Some(self.ident("the parent class's name")?)
        } else {
            None
        };
        self.expect('{', "to open the class")?;
        let mut props = Vec::new();
        loop {
            if self.punct('}') {
                self.punct(';');
                return Ok(ClassDecl {
                    name,
                    parent,
                    quals,
                    props,
                    line,
                });
            }
            let pline = self.line();
            let pquals = self.qualifiers()?;
            let mut ty = self.ident("a property type")?;
            if self.is_word("ref") {
                self.i += 1;
                ty.push_str(" ref");
            }
            let pname = self.ident("a property name")?;
            if self.peek() == Some(&Tok::Punct('(')) {
                // A method: skipped.
                self.skip_group()?;
                self.skip_statement()?;
                continue;
            }
            let array = if self.punct('[') {
                let size = match self.peek() {
                    Some(Tok::Num(n)) => {
                        let n = parse_int(n).and_then(|v| u64::try_from(v).ok()).map(Some);
                        self.i += 1;
                        match n {
                            Some(n) => n,
                            None => return self.err("expected an array size of 0 or more"),
                        }
                    }
                    _ => None,
                };
                self.expect(']', "to close the array size")?;
                Some(size)
            } else {
                None
            };
            if self.punct('=') {
                // A default value: skipped.
                self.skip_statement()?;
            } else {
                self.expect(';', "after a property")?;
            }
            if props.len() == MAX_PROPERTIES {
                return Err((
                    pline,
                    format!("class {name}: more than {MAX_PROPERTIES} properties"),
                ));
            }
            props.push(PropDecl {
                name: pname,
                ty,
                array,
                quals: pquals,
                line: pline,
            });
        }
    }
}

/// The class declarations of `tokens`.
///
/// # Errors
/// (line, message) at the first statement that is not a class, instance, qualifier or
/// pragma declaration, or that breaks their syntax.
pub(crate) fn classes(tokens: &[Token]) -> R<Vec<ClassDecl>> {
    let mut p = P { t: tokens, i: 0 };
    let mut out = Vec::new();
    while p.peek().is_some() {
        if p.punct(';') {
            continue;
        }
        let line = p.line();
        let quals = p.qualifiers()?;
        if p.is_word("class") {
            p.i += 1;
            if out.len() == MAX_CLASSES {
                return p.err(format!("more than {MAX_CLASSES} classes"));
            }
            out.push(p.class(quals, line)?);
        } else if p.is_word("instance") || p.is_word("qualifier") || p.is_word("enum") {
            p.skip_statement()?;
        } else {
            return p.err("expected `class`, `instance of` or `qualifier`");
        }
    }
    Ok(out)
}
