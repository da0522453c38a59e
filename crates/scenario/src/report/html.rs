//! Writing the page as HTML: the escaping, the inline style and script, the SVG timeline
//! and the tables.

use super::{Counters, MAX_LISTED_JOURNAL, Mark, MarkKind, Page, level_text, ms};
use crate::run::ExpectationResult;
use std::fmt::Write as _;

/// `s` escaped for HTML text and attribute values.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const STYLE: &str = r#"
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1d2330; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.sub { color: #5a6272; margin-bottom: 12px; }
table { border-collapse: collapse; margin: 4px 0 12px; }
th, td { border: 1px solid #d5d9e0; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #eef1f6; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: #146c2e; font-weight: 600; } .fail { color: #b3261e; font-weight: 600; }
.note { color: #8a5a00; }
#timeline-wrap { overflow-x: auto; border: 1px solid #d5d9e0; }
svg text { font: 11px system-ui, sans-serif; fill: #1d2330; }
.ev { stroke: #2f6fde; stroke-width: 3; cursor: pointer; } .ev:hover, .ev.sel { stroke: #0b2f7a; stroke-width: 5; }
.lost { stroke: #d93025; stroke-width: 3; cursor: pointer; } .lost:hover, .lost.sel { stroke: #7a0b06; stroke-width: 5; }
.sw { stroke: #7c8596; stroke-width: 1.5; } .fl { stroke: #1a8f4c; stroke-width: 1.5; stroke-dasharray: 3 2; }
.ls { stroke: #d93025; stroke-width: 6; } .lane { fill: #f6f8fb; } .lane2 { fill: #eef1f6; }
#zoom { margin: 4px 0; } #zoom button { min-width: 28px; }
#detail { min-height: 120px; border: 1px solid #d5d9e0; padding: 8px; background: #fbfcfe; }
.legend span { display: inline-block; margin-right: 16px; }
.sw-key { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
pre { background: #f6f8fb; padding: 8px; overflow-x: auto; max-height: 480px; }
"#;

const SCRIPT: &str = r#"
(function () {
  var data = JSON.parse(document.getElementById('event-data').textContent);
  var detail = document.getElementById('detail');
  var pinned = null;
  function show(i) {
    var rows = data[i];
    if (!rows) { return; }
    var table = document.createElement('table');
    table.id = 'detail-table';
    rows.forEach(function (r) {
      var tr = document.createElement('tr');
      var th = document.createElement('th'); th.textContent = r[0];
      var td = document.createElement('td'); td.textContent = r[1];
      tr.appendChild(th); tr.appendChild(td); table.appendChild(tr);
    });
    var head = document.createElement('div');
    head.textContent = 'event ' + (i + 1) + ' of ' + data.length + (pinned === i ? ' (pinned: click another event to change)' : '');
    detail.replaceChildren(head, table);
  }
  var svg = document.getElementById('timeline');
  function target(e) { var t = e.target; return t && t.getAttribute ? t.getAttribute('data-i') : null; }
  svg.addEventListener('mouseover', function (e) { var i = target(e); if (i !== null && pinned === null) { show(+i); } });
  svg.addEventListener('click', function (e) {
    var i = target(e); if (i === null) { return; }
    var old = svg.querySelectorAll('.sel'); for (var k = 0; k < old.length; k++) { old[k].classList.remove('sel'); }
    pinned = (pinned === +i) ? null : +i;
    if (pinned !== null) { e.target.classList.add('sel'); }
    show(+i);
  });
  if (data.length > 0) { show(0); } else { detail.textContent = 'No events to show.'; }

  // Zoom: the plot group is scaled horizontally by k and shifted to show the window
  // [o, o + 1/k] of the run; the axis is redrawn for that window.
  var NS = 'http://www.w3.org/2000/svg';
  var span = +svg.getAttribute('data-span'), lw = +svg.getAttribute('data-label-w');
  var pw = +svg.getAttribute('data-plot-w'), ah = +svg.getAttribute('data-axis-h');
  var plot = document.getElementById('plot'), axis = document.getElementById('axis');
  var pan = document.getElementById('pan');
  var k = 1, o = 0;
  function ms(t) { return t >= 1e8 ? (t / 1e7).toFixed(3) + ' s' : (t / 1e4).toFixed(3) + ' ms'; }
  function draw() {
    o = Math.max(0, Math.min(o, 1 - 1 / k));
    plot.setAttribute('transform', 'translate(' + (lw * (1 - k) - o * k * pw) + ',0) scale(' + k + ',1)');
    var h = svg.getAttribute('height');
    while (axis.firstChild) { axis.removeChild(axis.firstChild); }
    for (var i = 0; i <= 4; i++) {
      var x = lw + pw * i / 4, t = span * (o + i / (4 * k));
      var l = document.createElementNS(NS, 'line');
      l.setAttribute('x1', x); l.setAttribute('x2', x); l.setAttribute('y1', ah - 4); l.setAttribute('y2', h);
      l.setAttribute('stroke', '#c9ced6'); l.setAttribute('stroke-dasharray', '1 3');
      var tx = document.createElementNS(NS, 'text');
      tx.setAttribute('x', x); tx.setAttribute('y', 14); tx.setAttribute('text-anchor', i === 4 ? 'end' : 'middle');
      tx.textContent = ms(t);
      axis.appendChild(l); axis.appendChild(tx);
    }
    pan.value = k > 1 ? Math.round(1000 * o / (1 - 1 / k)) : 0;
    pan.disabled = k === 1;
  }
  function centre() {
    var sel = svg.querySelector('.sel');
    if (sel) { return (+sel.getAttribute('x1') - lw) / pw; }
    return o + 0.5 / k;
  }
  document.getElementById('zoom').addEventListener('click', function (e) {
    var z = e.target.getAttribute && e.target.getAttribute('data-z');
    if (!z) { return; }
    var c = centre();
    if (z === 'in') { k = Math.min(k * 2, 1 << 20); }
    if (z === 'out') { k = Math.max(k / 2, 1); }
    if (z === 'fit') { k = 1; }
    o = c - 0.5 / k;
    draw();
  });
  pan.addEventListener('input', function () { o = (1 - 1 / k) * pan.value / 1000; draw(); });
  draw();
  var ready = document.createElement('div');
  ready.id = 'report-ready'; ready.hidden = true;
  document.body.appendChild(ready);
})();
"#;

/// Lane geometry.
const LABEL_W: f64 = 170.0;
const PLOT_W: f64 = 900.0;
const LANE_H: f64 = 20.0;
const HEAD_H: f64 = 22.0;
const AXIS_H: f64 = 26.0;

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "—".into(), |n| n.to_string())
}

pub(super) fn render(p: &Page) -> String {
    let mut h = String::with_capacity(64 * 1024 + p.marks.len() * 96);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(&p.title)
    );
    let _ = writeln!(
        h,
        "<h1 id=\"title\">{}</h1><div class=\"sub\">{}</div>",
        escape(&p.title),
        escape(&p.subtitle)
    );
    // Inline style: a page with neither keeps the bytes it always had.
    for (id, text) in [("damage", &p.damage), ("stopped", &p.stopped)] {
        if let Some(t) = text {
            let _ = writeln!(
                h,
                "<p id=\"{id}\" style=\"color:#fff;background:#b3261e;padding:6px 10px;font-weight:bold\">{}</p>",
                escape(t)
            );
        }
    }
    for n in &p.notes {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", escape(n));
    }
    if !p.expectations.is_empty() {
        render_expectations(&mut h, &p.expectations);
    }
    render_timeline(&mut h, p);
    let _ = writeln!(
        h,
        "<h2>Event detail</h2><div id=\"detail\">Hover over or click an event in the timeline (this page needs JavaScript for it).</div>"
    );
    render_counters(&mut h, &p.counters);
    if !p.kernel.is_empty() {
        h.push_str("<h2>Kernel events</h2><table id=\"kernel\"><tr><th>session</th><th>event</th><th>count</th></tr>\n");
        for (session, counts) in &p.kernel {
            for (name, n) in counts {
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td>{n}</td></tr>",
                    escape(session),
                    escape(name)
                );
            }
        }
        h.push_str("</table>\n");
    }
    render_slots(&mut h, p);
    if !p.boots.is_empty() {
        h.push_str("<h2>Boots</h2><pre id=\"boots\">");
        for b in &p.boots {
            h.push_str(&escape(b));
        }
        h.push_str("</pre>\n");
    }
    if !p.journal.is_empty() {
        let _ = writeln!(
            h,
            "<h2>Journal</h2><details id=\"journal\"><summary>{} entries{}</summary><pre>",
            p.journal.len(),
            if p.journal.len() >= MAX_LISTED_JOURNAL {
                " (the first ones)"
            } else {
                ""
            }
        );
        for line in &p.journal {
            let _ = writeln!(h, "{}", escape(line));
        }
        h.push_str("</pre></details>\n");
    }
    // The details as JSON, written straight into the page (no copy of them as a JSON tree).
    h.push_str("<script type=\"application/json\" id=\"event-data\">[");
    for (i, rows) in p.details.iter().enumerate() {
        h.push_str(if i == 0 { "[" } else { ",[" });
        for (j, (k, v)) in rows.iter().enumerate() {
            h.push_str(if j == 0 { "[" } else { ",[" });
            push_script_string(&mut h, k);
            h.push(',');
            push_script_string(&mut h, v);
            h.push(']');
        }
        h.push(']');
    }
    let _ = write!(h, "]</script>\n<script>{SCRIPT}</script>\n</body></html>\n");
    h
}

/// `s` as a JSON string made safe inside a `<script>` element: `<`, `>`, `&`, U+2028 and
/// U+2029 written as `\uXXXX` escapes, so no text can close the element.
fn push_script_string(h: &mut String, s: &str) {
    let json = serde_json::Value::from(s).to_string();
    for c in json.chars() {
        match c {
            '<' => h.push_str("\\u003c"),
            '>' => h.push_str("\\u003e"),
            '&' => h.push_str("\\u0026"),
            '\u{2028}' => h.push_str("\\u2028"),
            '\u{2029}' => h.push_str("\\u2029"),
            c => h.push(c),
        }
    }
}

fn render_expectations(h: &mut String, list: &[ExpectationResult]) {
    let failed = list.iter().filter(|e| !e.passed).count();
    let _ = writeln!(
        h,
        "<h2>Expectations: {} passed, {failed} failed</h2><table id=\"expectations\"><tr><th>line</th><th>expectation</th><th>expected</th><th>actual</th><th></th></tr>",
        list.len() - failed
    );
    for e in list {
        let _ = writeln!(
            h,
            "<tr><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>",
            e.line,
            escape(&e.what),
            escape(&e.expected),
            escape(&e.actual),
            if e.passed { "pass" } else { "fail" },
            if e.passed { "ok" } else { "FAIL" }
        );
    }
    h.push_str("</table>\n");
}

fn render_timeline(h: &mut String, p: &Page) {
    // Rows: per session a header (its own lane: flushes, losses without a CPU), then one
    // lane per CPU.
    let mut y = AXIS_H;
    let mut session_y = Vec::new();
    let mut lane_y: Vec<Vec<(u16, f64)>> = Vec::new();
    for s in &p.sessions {
        session_y.push(y);
        y += HEAD_H;
        let mut lanes = Vec::new();
        for c in &s.cpus {
            lanes.push((*c, y));
            y += LANE_H;
        }
        lane_y.push(lanes);
        y += 6.0;
    }
    let height = y + 4.0;
    let width = LABEL_W + PLOT_W + 20.0;
    let span = p.end.saturating_sub(p.start).max(1);
    // Marks are placed in plot coordinates; the zoom (JavaScript) scales the plot group
    // horizontally, so every mark is a line whose stroke does not scale.
    let x = |t: u64| LABEL_W + (t.saturating_sub(p.start) as f64 / span as f64).min(1.0) * PLOT_W;
    let _ = writeln!(
        h,
        "<h2>Timeline</h2><div class=\"legend\"><span><i class=\"sw-key\" style=\"background:#2f6fde\"></i>event</span>\
         <span><i class=\"sw-key\" style=\"background:#d93025\"></i>event lost / loss point</span>\
         <span><i class=\"sw-key\" style=\"background:#7c8596\"></i>buffer switch</span>\
         <span><i class=\"sw-key\" style=\"background:#1a8f4c\"></i>flush / buffer written</span></div>\
         <div id=\"zoom\">zoom <button type=\"button\" data-z=\"in\">+</button> <button type=\"button\" data-z=\"out\">&minus;</button> \
         <button type=\"button\" data-z=\"fit\">fit</button> pan <input type=\"range\" id=\"pan\" min=\"0\" max=\"1000\" value=\"0\"></div>\
         <div id=\"timeline-wrap\"><svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" data-span=\"{span}\" data-label-w=\"{LABEL_W}\" data-plot-w=\"{PLOT_W}\" data-axis-h=\"{AXIS_H}\">\
         <defs><clipPath id=\"plot-clip\"><rect x=\"{LABEL_W}\" y=\"0\" width=\"{PLOT_W}\" height=\"{height}\"/></clipPath></defs>"
    );
    for (i, s) in p.sessions.iter().enumerate() {
        let sy = session_y[i];
        let _ = write!(
            h,
            "<rect class=\"lane2\" x=\"0\" y=\"{sy}\" width=\"{width}\" height=\"{}\"/><text x=\"4\" y=\"{}\" font-weight=\"bold\">{}</text>",
            HEAD_H - 2.0,
            sy + 14.0,
            escape(&s.name)
        );
        for (cpu, ly) in &lane_y[i] {
            let _ = write!(
                h,
                "<rect class=\"lane\" x=\"{LABEL_W}\" y=\"{ly}\" width=\"{PLOT_W}\" height=\"{}\"/><text x=\"14\" y=\"{}\">CPU {cpu}</text>",
                LANE_H - 2.0,
                ly + 13.0
            );
        }
    }
    // The time axis: five ticks over the whole run (the script redraws them on zoom).
    h.push_str("<g id=\"axis\">");
    for k in 0..=4u64 {
        let t = (u128::from(span) * u128::from(k) / 4) as u64;
        let xx = LABEL_W + PLOT_W * k as f64 / 4.0;
        let _ = write!(
            h,
            "<line x1=\"{xx:.1}\" y1=\"{}\" x2=\"{xx:.1}\" y2=\"{height}\" stroke=\"#c9ced6\" stroke-dasharray=\"1 3\"/><text x=\"{xx:.1}\" y=\"14\" text-anchor=\"{}\">{}</text>",
            AXIS_H - 4.0,
            if k == 4 { "end" } else { "middle" },
            escape(&ms(t))
        );
    }
    h.push_str("</g><g clip-path=\"url(#plot-clip)\"><g id=\"plot\">");
    let lane_of = |m: &Mark| -> Option<(f64, f64)> {
        let sy = *session_y.get(m.session)?;
        match m.cpu {
            None => {
                let bottom = lane_y[m.session]
                    .last()
                    .map_or(sy + HEAD_H, |(_, y)| y + LANE_H);
                Some((sy, bottom))
            }
            Some(c) => lane_y[m.session]
                .iter()
                .find(|(cpu, _)| *cpu == c)
                .map(|(_, y)| (*y, *y + LANE_H - 2.0)),
        }
    };
    for m in &p.marks {
        let Some((top, bottom)) = lane_of(m) else {
            continue;
        };
        let xx = x(m.time);
        let (class, data, y1, y2) = match m.kind {
            MarkKind::Event(d) => ("ev", Some(d), top + 3.0, bottom - 3.0),
            MarkKind::LostEvent(d) => ("lost", Some(d), top + 3.0, bottom - 3.0),
            MarkKind::Switch => ("sw", None, top, top + 5.0),
            MarkKind::Flush => ("fl", None, top, bottom),
            MarkKind::Loss if m.cpu.is_some() => ("ls", None, top + 2.0, bottom - 2.0),
            MarkKind::Loss => ("ls", None, top + 3.0, top + HEAD_H - 5.0),
        };
        let _ = write!(
            h,
            "<line class=\"{class}\" x1=\"{xx:.2}\" y1=\"{y1:.1}\" x2=\"{xx:.2}\" y2=\"{y2:.1}\" vector-effect=\"non-scaling-stroke\""
        );
        match data {
            Some(d) => {
                let _ = write!(h, " data-i=\"{d}\"/>");
            }
            None => {
                let _ = write!(h, "><title>{}</title></line>", escape(&m.title));
            }
        }
    }
    h.push_str("</g></g></svg></div>\n");
}

fn render_counters(h: &mut String, list: &[Counters]) {
    h.push_str("<h2>Counters</h2><table id=\"counters\"><tr><th>session</th><th>events</th><th>EventsLost</th><th>BuffersWritten</th><th>LogBuffersLost</th><th>RealTimeBuffersLost</th></tr>\n");
    for c in list {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(&c.session),
            opt(c.events),
            opt(c.events_lost),
            opt(c.buffers_written),
            opt(c.log_buffers_lost),
            opt(c.real_time_buffers_lost)
        );
    }
    h.push_str("</table>\n");
}

fn render_slots(h: &mut String, p: &Page) {
    let _ = writeln!(
        h,
        "<h2>Enable slots</h2><div id=\"slots\"><p>{}</p>",
        escape(&p.slots_note)
    );
    for prov in &p.slots {
        let _ = writeln!(
            h,
            "<h3>{} <small>{}</small></h3><table class=\"slots\"><tr><th>slot</th><th>session</th><th>logger id</th><th>level</th><th>MatchAnyKeyword</th><th>MatchAllKeyword</th><th>EnableProperty</th></tr>",
            escape(&prov.name),
            escape(&prov.guid.to_string())
        );
        for slot in 0..etwsim::ENABLE_SLOTS as u8 {
            match prov.rows.iter().find(|r| r.slot == slot) {
                Some(r) => {
                    let _ = writeln!(
                        h,
                        "<tr><td class=\"n\">{slot}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{:#x}</td><td>{:#x}</td><td>{}</td></tr>",
                        escape(&r.session),
                        r.logger_id,
                        escape(&level_text(r.level)),
                        r.any,
                        r.all,
                        escape(&r.properties)
                    );
                }
                None => {
                    let _ = writeln!(
                        h,
                        "<tr><td class=\"n\">{slot}</td><td colspan=\"6\">(free)</td></tr>"
                    );
                }
            }
        }
        h.push_str("</table>\n");
    }
    h.push_str("</div>\n");
}
