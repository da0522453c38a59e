//! The MOF tokenizer: identifiers, numbers, string literals, punctuation — with `//` and
//! `/* */` comments and `#pragma` lines skipped — each token with its line.

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// An identifier or keyword (`class`, `uint32`, `Guid`).
    Ident(String),
    /// A string literal, escapes resolved.
    Str(String),
    /// A number as written (`12`, `0x1F`, `1.5`).
    Num(String),
    /// Any other character (`[`, `]`, `{`, `}`, `(`, `)`, `;`, `:`, `,`, `=`, `-`).
    Punct(char),
}

/// A token and its 1-based line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) line: u32,
}

/// Splits `text` into tokens.
///
/// # Errors
/// (line, message) for a string literal or a `/*` comment that never ends.
pub(crate) fn tokens(text: &str) -> Result<Vec<Token>, (u32, String)> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut line: u32 = 1;
    let mut at_line_start = true;
    while let Some((i, c)) = chars.next() {
        match c {
            '\n' => {
                line = line.saturating_add(1);
                at_line_start = true;
                continue;
            }
            c if c.is_whitespace() => continue,
            '#' if at_line_start => {
                // `#pragma …` (and any other directive): to the end of the line.
                while chars.peek().is_some_and(|(_, c)| *c != '\n') {
                    chars.next();
                }
                continue;
            }
            '/' if chars.peek().is_some_and(|(_, c)| *c == '/') => {
                while chars.peek().is_some_and(|(_, c)| *c != '\n') {
                    chars.next();
                }
                continue;
            }
            '/' if chars.peek().is_some_and(|(_, c)| *c == '*') => {
                let start = line;
                chars.next();
                let mut prev = ' ';
                let mut closed = false;
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        line = line.saturating_add(1);
                    }
                    if prev == '*' && c == '/' {
                        closed = true;
                        break;
                    }
                    prev = c;
                }
                if !closed {
                    return Err((start, "a /* comment that never ends".into()));
                }
                continue;
            }
            _ => {}
        }
        at_line_start = false;
        let tok = match c {
            '"' => {
                let start = line;
                let mut s = String::new();
                let mut closed = false;
                while let Some((_, c)) = chars.next() {
                    match c {
                        '"' => {
                            closed = true;
                            break;
                        }
                        '\\' => match chars.next() {
                            Some((_, 'n')) => s.push('\n'),
                            Some((_, 't')) => s.push('\t'),
                            Some((_, 'r')) => s.push('\r'),
                            Some((_, '0')) => s.push('\0'),
                            Some((_, c)) => {
                                if c == '\n' {
                                    line = line.saturating_add(1);
                                }
                                s.push(c);
                            }
                            None => break,
                        },
                        '\n' => {
                            line = line.saturating_add(1);
                            s.push(c);
                        }
                        c => s.push(c),
                    }
                }
                if !closed {
                    return Err((start, "a string that never ends".into()));
                }
                Tok::Str(s)
            }
            c if c.is_ascii_digit() => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '.' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                Tok::Num(text[i..end].to_string())
            }
            c if c.is_alphabetic() || c == '_' || c == '$' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_alphanumeric() || d == '_' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                Tok::Ident(text[i..end].to_string())
            }
            c => Tok::Punct(c),
        };
        out.push(Token { tok, line });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_pragmas_are_skipped_and_lines_counted() {
        let t = tokens("#pragma namespace(\"x\")\n// c\n[Guid(\"{a}\")] /* x\n y */ class A : B\n{ uint32 N[]; };")
            .unwrap();
        assert_eq!(
            t[0],
            Token {
                tok: Tok::Punct('['),
                line: 3
            }
        );
        assert_eq!(t[3].tok, Tok::Str("{a}".into()));
        let class = t
            .iter()
            .find(|t| t.tok == Tok::Ident("class".into()))
            .unwrap();
        assert_eq!(class.line, 4);
        assert_eq!(t.last().unwrap().line, 5);
        assert!(tokens("\"open").is_err());
        assert!(tokens("/* open").is_err());
    }
}
