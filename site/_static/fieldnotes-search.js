/* Search that works on pasted error messages (loaded on search.html only).

   1. Error index: the paste is matched against every reproduced error (window.FIELDNOTES_ERRORS, written
      by the build): TF-IDF cosine over words (log-scaled counts), with digits folded ("32x512" and "4x4" are
      both "#x#"), and a bonus when the paste quotes the entry's asserted message (two words or more): all of
      it, or its skeleton with other numbers, shapes, quoted names and exception classes in the slots; longer
      quotes earn more, and the message quoted first in a paste a little more. A small bonus when its
      exception class occurs. The best entries are listed first and link to the reproducing cell. In
      "No module named 'torch._six'" and "… has no attribute 'x'" the quoted name is what the message is
      about: it is no slot there, and a paste of the same sentence with another name ("No module named
      'torchvision'") is listed as possibly related, not as the reproduced error.
   2. Section search: a question is ranked against every section of the notebooks (BM25F over its heading,
      its page's title with the parent heading, and its own text: prose, visible code, claim statements;
      window.FIELDNOTES_SECTIONS, written by the build with each field's words already counted), plus how
      closely it matches the questions the section answers (site/section_questions.tsv and the page's own "What you will learn": TF-IDF cosine
      against each question, its two best). A word no section has is ignored, a word a
      section lacks only lowers its score. Each hit opens the page at that section, its words highlighted,
      under a snippet taken from the section's own text.
   3. Page search: Sphinx requires every query word to be in a page, so a paste with a number, a shape, a
      path or a suffix the site never printed found nothing. Words the index does not know are dropped; when
      no page has all the others, pages are ranked by how many they contain.
*/
(() => {
  const STOP = new Set(
    ("a an and are as at be but by for from has have if in into is it its of on or not that the their then " +
      "there these this to was were will with when which you your can")
      .split(" ")
  );
  const norm = (s) =>
    s
      .toLowerCase()
      .replace(/[\u2018\u2019]/g, "'")
      .replace(/[\u201c\u201d]/g, '"')
      .replace(/\d+/g, "#")
      .replace(/\s+/g, " ")
      .trim();
  // the search page's own Porter stemmer: "allocate", "allocated" and "allocation" are one word
  let stemmer = null; // language_data.js may load after this script: made on first use
  // Each word is stemmed once: the error index and the snippets meet the same words many times, and
  // Sphinx's stemmer builds its regular expressions anew on every call (the section index, when the page
  // still stemmed it, took 1.07 s in Node without this memo, 0.51 s with it).
  const stemmed = new Map();
  const stem = (w) => {
    if (!stemmer && typeof Stemmer !== "undefined") stemmer = new Stemmer();
    if (!stemmer || w.includes("#")) return w;
    let s = stemmed.get(w);
    if (s === undefined) stemmed.set(w, (s = stemmer.stemWord(w)));
    return s;
  };
  // A hyphenated compound also counts as the one word it is often written as: "non-scalar" is non,
  // scalar and nonscalar; "in-place" is place and inplace (PyTorch's own spelling).
  const words = (s) => {
    const n = norm(s);
    const joined = (n.match(/[\p{L}\p{N}#]+(?:-[\p{L}\p{N}#]+)+/gu) || []).map((c) => c.replace(/-/g, ""));
    return [...(n.replace(/_/g, " ").match(/[\p{L}\p{N}#]+/gu) || []), ...joined]
      .filter((w) => w.length > 1 && w !== "#" && !STOP.has(w))
      .map(stem);
  };

  // ---------------------------------------------------------------------------------- error index
  // built on first use, once the page's stemmer (language_data.js) is there
  let entries = null;
  const df = new Map();
  const idf = (w) => Math.log(1 + entries.length / (df.get(w) || entries.length));
  // a word's weight grows with the log of its count: a pasted list of forty key names or a long traceback
  // does not outweigh the message's own words
  const vector = (ws) => {
    const tf = new Map();
    ws.forEach((w) => df.has(w) && tf.set(w, (tf.get(w) || 0) + 1));
    return new Map([...tf].map(([w, n]) => [w, (1 + Math.log(n)) * idf(w)]));
  };
  const length = (v) => Math.sqrt([...v.values()].reduce((s, x) => s + x * x, 0)) || 1;
  // A shape or a list of numbers reads as one value whatever its rank: "torch.Size([16, 1])", "[1, 4, 16]",
  // "(1, 3, 16)" and "(4x1x1)" become "[#]", "(#)" and "#x#" (after norm has folded the digits).
  const shapes = (s) =>
    s
      .replace(/\[[#,\s]*\]/g, "[#]")
      .replace(/\(\s*#(?:\s*,\s*#)*\s*,?\s*\)/g, "(#)")
      .replace(/#(?:\s*x\s*#)+/g, "#x#");
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // The parts of an asserted message that change from one run to the next (a number, a shape, a name with
  // digits, a quoted name, an exception class) are slots; the rest is its skeleton. A paste that has the
  // skeleton in order, whatever fills the slots, quotes the message ("size mismatch for 6.weight" and
  // "size mismatch for conv1.0.weight: …"). Slots at either end are dropped; `lit` counts the fixed letters.
  const SLOT = /#|^['"`<]|^[a-z]+(?:error|exception|warning)\W*$/;
  // In "… has no attribute 'x'" and "No module named 'x'" the quoted name is what the message is about
  // (which attribute, which module), not a value that changes from run to run: with `subjects` it is no
  // slot but must match, with or without its quotes. ("Can't get attribute 'Net' on …" names the user's
  // class: a slot.)
  // A library type's name (dotted: "'collections.OrderedDict' object has no attribute 'eval'", as Python
  // prints a built-in type; a user's class prints undotted) is the subject instead: the attribute is then a
  // slot ('to', 'cuda'), and the type matches with or without its module ('OrderedDict').
  const SUBJECT = /^(?:no attribute|module named)$/;
  const UNQUOTE = /^['"`]|['"`]?[.,;:]*$/g;
  const DOTTED = /^['"`][\w.]+\.\w+['"`]$/;
  const skeleton = (f, subjects = false) => {
    const all = f.split(" ");
    const typed = (i) => subjects && DOTTED.test(all[i]) && all[i + 1] === "object" && all[i + 2] === "has";
    const hasType = all.some((_, i) => typed(i));
    const toks = all.map((t, i) => {
      const said = /^['"`]/.test(t) && i >= 2 && SUBJECT.test(`${all[i - 2]} ${all[i - 1]}`);
      const name = typed(i) || (subjects && said && !(hasType && all[i - 1] === "attribute"));
      return { t, name, type: typed(i), slot: SLOT.test(t) && !name };
    });
    if (!toks.some((x) => x.slot || x.name)) return null; // all fixed: the fragment itself
    while (toks.length && toks[0].slot) toks.shift();
    while (toks.length && toks[toks.length - 1].slot) toks.pop();
    const fixed = toks.filter((x) => !x.slot);
    const lit = fixed.reduce((n, x) => n + x.t.length, 0) + fixed.length - 1;
    if (fixed.length < 2 || lit < 10) return null;
    const parts = [];
    toks.forEach((x, i) => {
      if (x.type) {
        const [name, ...modules] = x.t.replace(UNQUOTE, "").split(".").reverse();
        const prefix = modules.length ? `(?:${escape(modules.reverse().join("."))}\\.)?` : "";
        parts.push(`['"\`]?${prefix}${escape(name)}['"\`]?`);
      } else if (x.name) parts.push(`['"\`]?${escape(x.t.replace(UNQUOTE, ""))}['"\`]?[.,;:]*`);
      else if (!x.slot) parts.push(escape(x.t.replace(/[.,;:]+$/, "")) + "[.,;:]*");
      else if (!toks[i - 1].slot) parts.push("\\S+(?:\\s+\\S+){0,8}?");
    });
    const subject = toks.some((x) => x.name);
    return { re: new RegExp("(?:^|\\s)" + parts.join("\\s+") + "(?=\\s|$)"), lit, subject };
  };
  const buildIndex = () => {
    entries = (window.FIELDNOTES_ERRORS || []).map((e) => {
      const text = [e.ename, e.message, e.message, e.statement, e.section].join(" ");
      // alternatives per torch version are joined by " / "
      const fragments = e.message
        .split("\n")[0]
        .split(" / ")
        .map((f) => shapes(norm(f)))
        .filter((f) => f.includes(" ") && f.length >= 10);
      const skeletons = fragments.map((f) => skeleton(f, true)).filter(Boolean);
      return {
        ...e,
        words: words(text),
        fragments,
        skeletons,
        // the same sentence about any name ("no module named …"): it tells a paste about another name
        others: skeletons.some((k) => k.subject) ? fragments.map((f) => skeleton(f)).filter(Boolean) : [],
      };
    });
    entries.forEach((e) => new Set(e.words).forEach((w) => df.set(w, (df.get(w) || 0) + 1)));
    // a claim's further messages (ename "message") raise what the claim raises
    const raised = new Map();
    entries.forEach((e) => e.claim && e.ename !== "message" && raised.set(e.page + e.claim, e.ename));
    entries.forEach((e) => (e.raises = (e.ename === "message" && raised.get(e.page + e.claim)) || e.ename));
    entries.forEach((e) => {
      e.vec = vector(e.words);
      e.len = length(e.vec);
      const one = norm(e.message.split("\n")[0]);
      const w = words(one);
      e.rare = /^[\p{L}_]{5,}$/u.test(one) && w.length === 1 && (df.get(w[0]) || 0) <= 2 ? one : null;
    });
  };

  const QUOTE = 120; // a quote this long (characters) earns the full bonus
  const HEADLINE = 0.15;
  const matchErrors = (paste) => {
    if (entries === null) buildIndex();
    const q = vector(words(paste));
    const qlen = length(q);
    const flat = norm(paste);
    const shaped = shapes(flat);
    const best = new Map(); // anchor -> best entry
    entries.forEach((e) => {
      let dot = 0;
      q.forEach((x, w) => (dot += x * (e.vec.get(w) || 0)));
      let score = dot / (qlen * e.len);
      // how much of an asserted message the paste quotes: all of it, or its skeleton (the fixed letters);
      // the longer the quote, the more specific the entry ("a view of a leaf Variable …" over "a leaf …")
      const found = [
        ...e.fragments.map((f) => [f.length, shaped.indexOf(f)]),
        ...e.skeletons.map((k) => [k.lit, shaped.search(k.re)]),
      ].filter(([, at]) => at >= 0);
      let quoted = found.length > 0;
      let at = Infinity;
      if (quoted) {
        score += 0.5 + (0.5 * Math.min(Math.max(...found.map(([n]) => n)), QUOTE)) / QUOTE;
        at = Math.min(...found.map(([, i]) => i));
      }
      // a one-word asserted part that no more than two entries share ("mkdir") is as telling as a phrase
      else if (e.rare && flat.split(/[^\p{L}\p{N}_]+/u).includes(e.rare)) {
        quoted = true;
        score += 1.2;
      }
      // the exception class as Python prints it ("TypeError: …") tells entries with similar words apart
      if (paste.includes(e.raises.split(".").pop() + ":")) score += 0.15;
      const key = e.anchor + "@" + e.page;
      const other = !quoted && e.others.some((k) => shaped.search(k.re) >= 0);
      if (!best.has(key) || best.get(key).score < score) best.set(key, { ...e, score, quoted, other, at });
    });
    // of two messages quoted in one paste, the first is its headline ("Missing key(s) … Unexpected …")
    const head = Math.min(...[...best.values()].map((e) => e.at));
    best.forEach((e) => e.at === head && head < Infinity && (e.score += HEADLINE));
    // one hit per answer: a section's stored message (no claim) and the claims that assert it are one
    const shown = [];
    [...best.values()]
      .filter((e) => e.score >= 0.05)
      .sort((a, b) => b.score - a.score)
      .forEach((e) => {
        const same = (o) => o.page === e.page && o.section === e.section && (!o.claim || !e.claim || o.claim === e.claim);
        if (!shown.some(same)) shown.push(e);
      });
    return shown;
  };
  // A paste looks like an error message when it names an exception class, or when it is no question (a
  // question word first, or a question mark last) and has a "name: " prefix or is long (8+ words). Other
  // queries (a page search such as "torch.compile", a question in words) get error hits only when they
  // contain an entry's asserted message: a question is not told that no reproduced error matches it.
  const QUESTION =
    /^\W*(how|why|what|when|where|which|who|whose|does|do|did|is|are|was|were|can|could|should|would|will|may|might|has|have|had|am|any|anyone)\s|\?\W*$/i;
  const looksLikeError = (paste) =>
    /[A-Za-z](Error|Exception|Warning)\b/.test(paste) ||
    (!QUESTION.test(paste.trim()) && (/\w:\s/.test(paste) || words(paste).length >= 8));
  // The words to highlight on the page a hit opens: the entry's own message words found in the paste
  // (four letters or more: shorter pieces light up inside ordinary words), the three the error index finds
  // rarest: the ones that tell this message apart.
  // (not the words of a message's frame: "Expected ... but found at least two devices" marks device and
  // devices, not least and found)
  const FRAME = new Set("expected found least got received instead must should unable cannot".split(" "));
  const highlightWords = (e, paste) => {
    const raw = (s) =>
      (norm(s).replace(/_/g, " ").match(/[\p{L}]+/gu) || []).filter(
        (w) => w.length >= 4 && !STOP.has(w) && !FRAME.has(w) && !PLAIN.has(w) && !SMALL.has(w)
      );
    const pasted = new Set(raw(paste));
    return [...new Set(raw(e.message))]
      .filter((w) => pasted.has(w))
      .sort((a, b) => idf(stem(b)) - idf(stem(a)) || b.length - a.length)
      .slice(0, 3);
  };
  // What the search page lists for a paste: null, or the hits and whether the first is its reproduced error.
  const errorHits = (paste) => {
    // a few plain words, or a question, list an error only when they contain its asserted message (a close
    // match of a question's words is no message: "how to save and load a model for inference" matched
    // "Inference tensors cannot be saved for backward")
    const all = matchErrors(paste).filter((e) => looksLikeError(paste) || e.quoted);
    if (!all.length) return null;
    // only hits close to the best one; a weak best (no asserted message quoted), or the best's sentence
    // about another module or attribute, is said to be a guess
    const top = all[0].score;
    const hits = all.filter((e) => e.score >= Math.max(0.15, top / 2)).slice(0, 5);
    return { hits, sure: all[0].quoted || (top >= 0.6 && !all[0].other) };
  };
  // Whether a paste quotes an asserted message, its fragment or its skeleton (for the browser tests).
  const quotes = (message, paste) => {
    const f = shapes(norm(message));
    const k = skeleton(f, true);
    const p = shapes(norm(paste));
    return p.includes(f) || (!!k && p.search(k.re) >= 0);
  };
  window.FieldnotesSearch = { matchErrors, errorHits, quotes, words };

  const showErrors = (paste) => {
    const found = errorHits(paste);
    if (!found) return;
    const { hits, sure } = found;
    const root = document.documentElement.dataset.content_root || "";
    const box = document.createElement("section");
    box.id = "fieldnotes-error-hits";
    const h = document.createElement("h2");
    h.textContent = sure ? "Reproduced errors" : "Possibly related reproduced errors";
    box.appendChild(h);
    const results = document.getElementById("search-results");
    if (!sure) {
      // said first, above the sections (a reader of a long result list must not take a guess for a match)
      const note = document.createElement("p");
      note.id = "fieldnotes-no-repro";
      note.setAttribute("role", "note");
      const index = document.createElement("a");
      index.href = `${root}errors.html`;
      index.textContent = "error index";
      note.append(
        "No reproduced error matches this message closely. The sections below share some of its words " +
          "and may still answer it; the nearest reproduced errors follow them, and the ",
        index,
        " lists every error the notebooks reproduce."
      );
      results.parentNode.insertBefore(note, results);
      const p = document.createElement("p");
      p.textContent = "Each shares some of the message's words; none matches it closely.";
      box.appendChild(p);
    }
    const list = document.createElement("ol");
    list.className = "fn-error-hits";
    hits.forEach((e) => {
      const li = document.createElement("li");
      const a = document.createElement("a");
      const terms = highlightWords(e, paste).join(" ");
      a.href = `${root}${e.page}?highlight=${encodeURIComponent(terms)}#${e.anchor}`;
      // sphinx_highlight.js prefers the terms the search page stored (the whole paste) to the link's own
      // (on mousedown and keydown: a middle click opening a new tab fires no click)
      const remember = () => localStorage.setItem("sphinx_highlight_terms", terms);
      a.addEventListener("mousedown", remember);
      a.addEventListener("keydown", remember);
      a.textContent = `${e.num} · ${(e.section || e.title).replace(/`/g, "")}`;
      li.appendChild(a);
      // the exception's class, where the notebook names it (a warning or a message checked on its text alone
      // has none: "message" is the index's word for that, not the reader's)
      const code = document.createElement("code");
      code.textContent = e.ename;
      if (e.ename === "message") li.append(` — “${e.shown}”`);
      else li.append(" — ", code, `: ${e.shown}`);
      if (e.gpu_only) li.append(" [needs CUDA: reproduced on a GPU; the CPU test run skips it]");
      // what the claim proves, one tap away: a whole statement runs to a phone screen and more
      if (e.claim) {
        const more = document.createElement("details");
        const summary = document.createElement("summary");
        summary.textContent = `what claim ${e.claim} shows`;
        more.append(summary, e.statement);
        li.appendChild(more);
      }
      list.appendChild(li);
    });
    box.appendChild(list);
    results.parentNode.insertBefore(box, results);
    return sure ? null : box; // sections go above a guess, below a sure hit
  };

  // ---------------------------------------------------------------------------------- sections
  // question words: stemmed on first use (the page's stemmer may load after this script)
  let askWords = null;
  const ASK = {
    has: (w) =>
      (askWords ||= new Set(
        "how do does did what why when where which who should can could would i my me we get use using vs versus"
          .split(" ")
          .map(stem)
      )).has(w),
  };
  // Tunable weights: heading, page title + parent heading, own text; the page's own relevance (a question
  // first picks its notebook, then the section in it); BM25's k1 and length normalisation b; ask: how much
  // the section's questions count (their best matches) beside its own words. Tuned on
  // tests/data/questions_tuning.tsv, never on the held-out tests/data/questions.tsv.
  // quoted: the share of its score that a section headed by a quoted message keeps (an error's own section:
  // pasted errors find it through the error index, and a plain question prefers the lesson that explains it).
  const W = { h: 3, p: 1, b: 1, page: 0.25, k1: 1.2, len: 0.75, ask: 3, quoted: 0.8, child: 0.5 };
  const QUOTED = /^[\d.]+\s+["“']/; // "24.2 \"This DataLoader will create …\""
  const FIELD_KEYS = ["h", "p", "b"];
  let sections = null;
  let pages = null;
  let asks = null; // every question a section answers: { s: section index, v: unit TF-IDF vector }
  const askIndex = new Map(); // word -> [[question number, weight]]
  const askIdf = new Map();
  const sdf = new Map();
  const pdf = new Map();
  const avg = { h: 1, p: 1, b: 1, page: 1 };
  const counts = (ws) => ws.reduce((m, w) => m.set(w, (m.get(w) || 0) + 1), new Map());
  // a question as a unit vector: log-scaled counts times the idf over all the sections' questions
  const unit = (tf) => {
    const v = [...tf].filter(([w]) => askIdf.has(w)).map(([w, n]) => [w, (1 + Math.log(n)) * askIdf.get(w)]);
    const len = Math.sqrt(v.reduce((a, [, x]) => a + x * x, 0)) || 1;
    return v.map(([w, x]) => [w, x / len]);
  };
  const buildSections = () => {
    // The build has counted each section's words (fieldnotes_site.search.section_index, which computes
    // words() as above: a browser test compares the two): w holds, per field, vocabulary numbers (a word
    // once) or [number, count]; q each of its questions' words.
    const vocab = window.FIELDNOTES_WORDS || [];
    sections = (window.FIELDNOTES_SECTIONS || []).map((s) => {
      // a page's top (its title) and its summaries restate every section: they rank below the section itself
      const summary = !s.anchor || /^(Takeaways|Corrections)$/.test(s.heading);
      const tf = {};
      const len = {};
      FIELD_KEYS.forEach((k, f) => {
        tf[k] = new Map();
        len[k] = 0;
        s.w[f].forEach((e) => {
          const [i, n] = typeof e === "number" ? [e, 1] : e;
          tf[k].set(vocab[i], n);
          len[k] += n;
        });
      });
      const qs = s.q.map((q) => counts(q.map((i) => vocab[i]).filter((w) => !ASK.has(w)))).filter((c) => c.size);
      return { ...s, tf, weight: summary ? 0.7 : 1, len, qs };
    });
    sections.forEach((s) =>
      new Set([...FIELD_KEYS.flatMap((k) => [...s.tf[k].keys()]), ...s.qs.flatMap((c) => [...c.keys()])]).forEach(
        (w) => sdf.set(w, (sdf.get(w) || 0) + 1)
      )
    );
    FIELD_KEYS.forEach((k) => (avg[k] = sections.reduce((a, s) => a + s.len[k], 0) / (sections.length || 1) || 1));
    // the questions: each one a document of its own
    asks = sections.flatMap((s, i) => s.qs.map((tf) => ({ s: i, tf })));
    const qdf = new Map();
    asks.forEach((q) => q.tf.forEach((_, w) => qdf.set(w, (qdf.get(w) || 0) + 1)));
    qdf.forEach((d, w) => askIdf.set(w, Math.log(asks.length / d)));
    asks.forEach((q, j) =>
      unit(q.tf).forEach(([w, x]) => (askIndex.get(w) || askIndex.set(w, []).get(w)).push([j, x]))
    );
    // each page as one document: its title, headings and text
    const byPage = new Map();
    sections.forEach((s) => {
      const page = byPage.get(s.page) || { tf: new Map(), len: 0 };
      FIELD_KEYS.forEach((k) => s.tf[k].forEach((n, w) => page.tf.set(w, (page.tf.get(w) || 0) + n)));
      page.len += s.len.h + s.len.b;
      byPage.set(s.page, page);
    });
    pages = byPage;
    pages.forEach((pg) => pg.tf.forEach((_, w) => pdf.set(w, (pdf.get(w) || 0) + 1)));
    avg.page = [...pages.values()].reduce((a, pg) => a + pg.len, 0) / (pages.size || 1) || 1;
  };
  const bm25 = (tf, idf) => (idf * tf) / (W.k1 + tf);
  const idfOf = (n, df) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  // A glossary term in Chinese brings its English with it (随机种子 -> random seed): the sections are English.
  const expand = (q) =>
    (window.FIELDNOTES_GLOSSARY || []).reduce((a, [zh, en]) => (q.includes(zh) ? `${a} ${en}` : a), q);
  const questionTerms = (q) => [...new Set(words(expand(q)))].filter((w) => !ASK.has(w) && sdf.has(w));
  // how well a question matches each section's own questions: the mean cosine of its two best matches
  // (a section that one of its questions matches well, and a second one too, beats a single lucky match)
  const askScores = (q) => {
    const dot = new Map();
    unit(counts(words(q).filter((w) => !ASK.has(w)))).forEach(([w, x]) =>
      (askIndex.get(w) || []).forEach(([j, y]) => dot.set(j, (dot.get(j) || 0) + x * y))
    );
    const best = new Map();
    dot.forEach((c, j) => {
      const i = asks[j].s;
      const [a, b] = best.get(i) || [0, 0];
      best.set(i, c > a ? [c, a] : [a, Math.max(b, c)]);
    });
    return new Map([...best].map(([i, [a, b]]) => [i, (a + b) / 2]));
  };
  const matchSections = (q) => {
    if (sections === null) buildSections();
    const terms = questionTerms(q);
    const n = sections.length;
    const pageScore = new Map();
    pages.forEach((pg, name) => {
      let score = 0;
      terms.forEach((w) => {
        const t = pg.tf.get(w) || 0;
        if (t) score += bm25(t / (1 - W.len + (W.len * pg.len) / avg.page), idfOf(pages.size, pdf.get(w)));
      });
      pageScore.set(name, score);
    });
    const best = Math.max(1e-9, ...pageScore.values());
    const own = sections.map((s) => {
      let score = 0;
      terms.forEach((w) => {
        // BM25F: field-weighted, length-normalised term frequency, times the idf
        let tf = 0;
        FIELD_KEYS.forEach((k) => {
          const t = s.tf[k].get(w) || 0;
          if (t) tf += (W[k] * t) / (1 - W.len + (W.len * s.len[k]) / avg[k]);
        });
        if (tf) score += bm25(tf, idfOf(n, sdf.get(w)));
      });
      if (score > 0) score += W.page * (pageScore.get(s.page) / best) * terms.length;
      return score * s.weight;
    });
    // the section's own words (relative to the best section's) plus its questions' best matches
    const top = Math.max(1e-9, ...own);
    const asked = askScores(q);
    const hits = sections
      .map((s, i) => {
        const score = own[i] / top + W.ask * (asked.get(i) || 0);
        return { s, score: QUOTED.test(s.heading) ? W.quoted * score : score };
      })
      .filter((h) => h.score > 0)
      .sort((a, b) => b.score - a.score)
      .map((h) => ({ ...h.s, score: h.score }));
    // A heading over subsections speaks through them: when it ranks first, its best subsection goes first if
    // it scores at least W.child of the heading's score (the judges of the question sets rarely took a
    // heading's own few lines as the answer).
    // A heading that has every word of the query ("gradient accumulation", "dying relu") is what was asked
    // for: it keeps its place.
    const first = hits[0];
    const child = first && hits.find((h) => h.page === first.page && h.parent === first.heading);
    const named = first && terms.length && terms.every((w) => first.tf.h.has(w));
    if (child && !named && child.score >= W.child * first.score) hits.unshift(...hits.splice(hits.indexOf(child), 1));
    return hits;
  };
  // The query as typed: its names and words of three letters or more, lower-cased (weights_only whole,
  // where the ranking's words split it in two).
  const typed = (q) =>
    [...new Set(norm(q).match(/\p{Script=Han}{2,}|[\p{L}\p{N}_]{3,}/gu) || [])].filter(
      (w) => !STOP.has(w) && !ASK.has(stem(w))
    ); // (a Chinese word from two characters: 梯度)
  // Where a word typed as in the query first stands whole in a text (-1: nowhere). Only the words that
  // say something on their own count: a name with an underscore, six letters or more, or Chinese (a long
  // paste is full of short words that stand everywhere); Chinese is found inside other characters.
  const telling = (raw) => raw.filter((w) => w.includes("_") || w.length >= 6 || /\p{Script=Han}/u.test(w));
  const wholeWord = new Map(); // word -> its compiled pattern
  const typedAt = (text, w) => {
    const low = text.toLowerCase();
    if (/\p{Script=Han}/u.test(w)) return low.indexOf(w);
    if (!wholeWord.has(w)) wholeWord.set(w, new RegExp(`(?<![\\p{L}\\p{N}_])${w}(?![\\p{L}\\p{N}_])`, "u"));
    const m = wholeWord.get(w).exec(low);
    return m ? m.index : -1;
  };
  // The sentence of the section's own text with the most query words (a word typed as in the query counts
  // twice), and that count: a sentence of its prose where one has any, unless only a block of its code,
  // math or tables (the index marks those with U+2063 on both sides) has a name typed with an underscore
  // (weights_only); a block of those where no prose sentence has a query word. A sentence ends with its
  // paragraph or list item, or at . ! or ? followed by a space and a capital, a digit or an opening quote or
  // bracket, so that torch.load(...) or "1.5 s" do not cut one in two. A section with no text of its own (a
  // heading over subsections) speaks through its first subsection.
  const NOT_PROSE = "\u2063";
  const PARAGRAPH_END = "\u2060"; // after each paragraph, list item and claim statement (the build's mark)
  const hasOwnText = (s) => !!s.text.replace(/[\u2060\u2063]/g, "").trim(); // beyond the build's marks
  const ownText = (s) => {
    if (hasOwnText(s)) return s.text;
    const child = sections.find((c) => c.page === s.page && c.parent === s.heading && c.anchor);
    return child ? child.text : "";
  };
  const bestSentence = (s, terms, raw = []) => {
    const parts = ownText(s).split(NOT_PROSE);
    const prose = parts
      .filter((_, i) => i % 2 === 0)
      .flatMap((t) => t.split(PARAGRAPH_END))
      .flatMap((t) => t.split(/(?<=[.!?])(?<!\b(?:al|e\.g|i\.e|vs|cf|Fig|Eq|approx)\.)\s+(?=[\p{Lu}\p{N}(“"'`\[])/u));
    const other = parts.filter((_, i) => i % 2 === 1);
    // a sentence with TeX in it (\\text{...}) reads worse than one without: half a word less
    const count = (t) => {
      const n = new Set(words(t).filter((w) => terms.includes(w))).size + 2 * telling(raw).filter((w) => typedAt(t, w) >= 0).length;
      return n && /\\[a-zA-Z]+/.test(t) ? n - 0.5 : n;
    };
    const best = (list) =>
      list.map((t) => t.trim()).filter(Boolean).reduce(([a, n], b) => (count(b) > n ? [b, count(b)] : [a, n]), ["", -1]);
    const [p, np] = best(prose);
    const [o, no] = best(other);
    // a name typed with an underscore (weights_only) that only the code has: the code
    const names = raw.filter((w) => w.includes("_") && o.toLowerCase().includes(w) && !p.toLowerCase().includes(w));
    if (np > 0 && !names.length) return [p, np];
    if (names.length) return [o, no];
    // no sentence has a query word: the section's first sentence says what it is about, code does not
    const first = prose.map((t) => t.trim()).find(Boolean);
    return first ? [first, Math.max(np, 0)] : [o, Math.max(no, 0)];
  };
  // At most `size` characters of a text, from 100 before the first word typed as in the query (else the
  // first that stems to a query term), "…" where it is cut; null when neither is in it.
  const around = (text, terms, raw, size) => {
    const typedHits = telling(raw).map((w) => typedAt(text, w)).filter((i) => i >= 0);
    const word = [...text.matchAll(/[\p{L}\p{N}_]+/gu)].find((m) => words(m[0]).some((w) => terms.includes(w)));
    const at = typedHits.length ? Math.min(...typedHits) : word ? word.index : -1;
    if (at < 0) return null;
    let start = text.length <= size ? 0 : Math.max(0, Math.min(at - 100, text.length - size));
    let end = start + size;
    // whole words: a cut moves to the next space after it (at the start) or the last before it (at the end)
    if (start > 0 && text[start - 1] !== " ") start = Math.min(at, text.indexOf(" ", start) + 1 || at);
    if (end < text.length && text[end] !== " ") {
      const space = text.lastIndexOf(" ", end);
      end = space > at ? space : start + size; // a word longer than the window is cut inside
    }
    return `${start ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`;
  };
  // The snippet: that sentence (300 characters of it at most, around the query's first word), the query's
  // words marked.
  const snippet = (s, terms, raw = []) => {
    const sentence = bestSentence(s, terms, raw)[0].trim();
    const cut = sentence.length > 300 ? `${sentence.slice(0, sentence.lastIndexOf(" ", 300) + 1 || 300).trim()}…` : sentence;
    return marked(around(sentence, terms, raw, 300) || cut, terms, raw);
  };
  const marked = (text, terms, raw = []) => {
    const p = document.createElement("p");
    p.className = "fn-snippet";
    // not the small words a query is full of ("no", "same", "after"): they rank, but marked they say nothing
    const hit = (piece) => {
      const low = piece.toLowerCase();
      if ((low.length < 3 || PLAIN.has(low) || SMALL.has(low)) && !telling(raw).includes(low)) return false;
      return words(piece).some((w) => terms.includes(w)) || telling(raw).some((w) => typedAt(piece, w) >= 0);
    };
    text.split(/([\p{L}\p{N}_]+)/u).forEach((piece) => {
      if (/^[\p{L}\p{N}_]+$/u.test(piece) && hit(piece)) {
        const m = document.createElement("mark");
        m.textContent = piece;
        p.appendChild(m);
      } else p.append(piece);
    });
    return p;
  };
  // What an opened section highlights (Sphinx marks every occurrence on the page, inside longer words
  // too: "mode" in every "model"): a name typed with an underscore whole (register_forward_hook, not
  // "forward" everywhere), then the query's other words (of a Chinese glossary term, its English; a
  // hyphenated one whole: "fine-tuning") that the section itself has, those that say most about it first
  // (weight below), three in all; words of four letters or more first (and a rarer short one: nan, ddp),
  // and none of the small words a pasted message or a question is full of.
  const SMALL = new Set("same two one all any some more most other into over under very just".split(" "));
  const PLAIN = new Set(
    ("been already after before they them than what does doing done must only also through should would could few " +
      "give gives keep keeps every become becomes make makes take takes happen happens seem seems still even")
      .split(" ")
  );
  const highlighted = (q, terms, s) => {
    const counted = counts(words(`${s.heading} ${ownText(s)}`));
    const own = new Set(counted.keys());
    const head = new Set(words(s.heading));
    const names = [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]+(?:_[\p{L}\p{N}]+)+/gu) || [])];
    const found = [
      ...new Set(expand(q).toLowerCase().replace(/_/g, " ").match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu) || []),
    ].filter(
      (w) => !PLAIN.has(w) && !STOP.has(w) && words(w).some((x) => terms.includes(x) && own.has(x))
    );
    // a short word counts when it is rare (nan, ddp, amp: no more than 50 sections have it)
    const long = found.filter((w) => w.length >= 4 || words(w).every((x) => (sdf.get(x) || 0) <= 50));
    // how much a word says about this section: rare in the index (idf), frequent in the section, twice as
    // much in its heading ("keeps" and "every" are rare but said once; "memory" is what the section is about)
    const weight = (w) =>
      Math.max(
        ...words(w).map(
          (x) => Math.log(sections.length / (sdf.get(x) || 1)) * (1 + Math.log(counted.get(x) || 1)) * (head.has(x) ? 2 : 1)
        )
      );
    const rest = (long.length ? long : found).sort((a, b) => weight(b) - weight(a));
    const text = `${s.heading} ${ownText(s)}`.toLowerCase();
    const shown = names.filter((n) => text.includes(n)); // not the reader's own paths and frames
    return [...shown, ...rest.filter((w) => !shown.some((n) => n.includes(w)))].slice(0, 3).join(" ");
  };
  const showSections = (q, before, instead = null) => {
    const hits = matchSections(q);
    if (!hits.length) return false;
    const terms = questionTerms(q);
    const top = hits[0].score;
    const root = document.documentElement.dataset.content_root || "";
    const box = document.createElement("section");
    box.id = "fieldnotes-section-hits";
    const h = document.createElement("h2");
    h.textContent = "Sections";
    const note = document.createElement("p");
    note.className = "fn-list-note";
    note.textContent = "The sections that match best, first; every page with the words is listed further down.";
    box.append(h, note);
    if (instead) {
      const p = document.createElement("p");
      p.className = "fn-list-note";
      p.textContent = `No section has the words of "${instead}": these are the sections for "${q}".`;
      box.appendChild(p);
    }
    const list = document.createElement("ol");
    list.className = "fn-section-hits";
    hits.filter((s) => s.score >= top / 3).slice(0, 8).forEach((s) => {
      const li = document.createElement("li");
      const a = document.createElement("a");
      const light = highlighted(q, terms, s);
      a.href = `${root}${s.page}?highlight=${encodeURIComponent(light)}${s.anchor ? "#" + s.anchor : ""}`;
      const remember = () => localStorage.setItem("sphinx_highlight_terms", light);
      a.addEventListener("mousedown", remember);
      a.addEventListener("keydown", remember);
      const num = s.title.split(" · ")[0];
      a.textContent = s.anchor ? `${num} · ${s.heading}` : s.title;
      li.appendChild(a);
      if (s.anchor) li.append(` — ${s.title.split(" · ").slice(1).join(" · ")}`);
      // a heading with no text of its own lists its subsections (its snippet would repeat its first one's)
      const kids = hasOwnText(s)
        ? []
        : sections.filter((c) => c.page === s.page && c.parent === s.heading && c.anchor).map((c) => c.heading);
      const contents = kids.join(" · ");
      const cut = contents.length > 300 ? `${contents.slice(0, contents.lastIndexOf(" · ", 300))} · …` : contents;
      li.appendChild(kids.length ? marked(cut, terms, typed(q)) : snippet(s, terms, typed(q)));
      list.appendChild(li);
    });
    box.appendChild(list);
    const results = document.getElementById("search-results");
    results.parentNode.insertBefore(box, before || results);
    return true;
  };
  window.FieldnotesSearch.matchSections = matchSections;
  // (the browser tests list a query's sections and reproduced errors in place)
  window.FieldnotesSearch.showSections = showSections;
  window.FieldnotesSearch.showErrors = showErrors;
  window.FieldnotesSearch.weights = W; // (the browser tests read them; a tuning script may set them)

  // ---------------------------------------------------------------------------------- page search
  const known = (word) => {
    const { terms, titleterms } = Search._index;
    if (terms.hasOwnProperty(word) || titleterms.hasOwnProperty(word)) return true;
    if (word.length <= 2) return false;
    return Object.keys(terms).some((t) => t.includes(word)) || Object.keys(titleterms).some((t) => t.includes(word));
  };
  const filesOf = (word) => {
    const { terms, titleterms } = Search._index;
    const files = new Set();
    const add = (f) => (f === undefined ? null : [].concat(f).forEach((x) => files.add(x)));
    add(terms[word]);
    add(titleterms[word]);
    if (!files.size && word.length > 2)
      Object.keys(terms).filter((t) => t.includes(word)).forEach((t) => add(terms[t]));
    return files;
  };
  const install = () => {
    if (typeof Search === "undefined" || Search._fieldnotes) return;
    Search._fieldnotes = true;
    // One entry a page: Sphinx lists a page once for its text and again for each of its headings that
    // matches the query whole (its own dedup compares the anchors too), so "hooks" listed notebook 04 twice
    // with the same excerpt. The best-scored entry of a page stays (Sphinx shows the list from its end);
    // an entry with a description (an API object, an index entry) is never merged.
    // The list then follows the section ranking: the notebook pages in the order of their best section (an
    // entry for one heading, in that section's), above the other pages (the ledger, the coverage table)
    // in Sphinx's order; Sphinx ranked by where a word stands (title, text), so a page of tables that
    // names every topic came first, and the notebooks in their numbers' order.
    const perform = Search._performSearch;
    if (perform)
      Search._performSearch = (query, ...rest) => {
        const pagesSeen = new Set();
        const shown = perform(query, ...rest).reverse(); // the order the page shows them in
        const unique = shown.filter((r) => {
          if (r[3]) return true;
          const first = !pagesSeen.has(r[0]);
          pagesSeen.add(r[0]);
          return first;
        });
        const rank = new Map();
        matchSections(query).forEach((h, i) => {
          if (!rank.has(h.page)) rank.set(h.page, i);
          if (h.anchor && !rank.has(`${h.page}#${h.anchor}`)) rank.set(`${h.page}#${h.anchor}`, i);
        });
        const at = (r) => (r[3] ? undefined : rank.get(`${r[0]}.html${r[2] || ""}`) ?? rank.get(`${r[0]}.html`));
        return unique
          .map((r, i) => [r, at(r) ?? Infinity, i])
          .sort((a, b) => a[1] - b[1] || a[2] - b[2])
          .map(([r]) => r)
          .reverse();
      };
    const original = Search.performTermsSearch;
    Search.performTermsSearch = (searchTerms, excludedTerms) => {
      const usable = new Set([...searchTerms].filter((w) => !/\d/.test(w) || known(w)).filter(known));
      // what an opened page highlights: the three words of four letters or more on the fewest pages
      const stored = localStorage.getItem("sphinx_highlight_terms");
      if (stored && searchTerms.size > 3) {
        const stemmer = new Stemmer();
        const pages = (w) => filesOf(stemmer.stemWord(w)).size;
        const keep = [...new Set(stored.split(" "))]
          .filter((w) => w.length >= 4 && !/\d/.test(w) && usable.has(stemmer.stemWord(w)))
          .sort((a, b) => pages(a) - pages(b))
          .slice(0, 3);
        localStorage.setItem("sphinx_highlight_terms", keep.join(" "));
      }
      if (!usable.size) return original(searchTerms, excludedTerms);
      const results = original(usable, excludedTerms);
      if (usable.size < 2) return results;
      // a word a page lacks does not drop it: pages with most (but not all) of the words follow, ranked
      // by how many they contain, below those that have every word
      const count = new Map();
      usable.forEach((w) => filesOf(w).forEach((f) => count.set(f, (count.get(f) || 0) + 1)));
      const most = Math.max(...count.values());
      const { docnames, titles, filenames } = Search._index;
      const listed = new Set(results.map((r) => r[0]));
      const more = [...count]
        .filter(([f, n]) => n >= Math.max(1, Math.ceil(most / 2)) && !listed.has(docnames[f]))
        .map(([f, n]) => [docnames[f], titles[f], "", null, n - 100, filenames[f], typeof SearchResultKind === "undefined" ? "text" : SearchResultKind.text]);
      return results.concat(more);
    };
  };

  // ------------------------------------------------------------------------------- page excerpts
  // Sphinx fetches every page it lists, whole (a notebook page is 0.2-1 MB, a few MB a search), to cut an
  // excerpt around the last query word it finds anywhere in the page (often the contents or the theme's
  // menus). A notebook page's excerpt is instead the snippet of its best section for the query, from the
  // sections this script already has: nothing fetched. The other pages keep Sphinx's excerpt, fetched as
  // Sphinx does, but not from file://, where a browser refuses the fetch (a CORS error per hit).
  if (typeof DOCUMENTATION_OPTIONS !== "undefined") DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
  // Another page's excerpt: 240 characters around the first word typed as in the query, else the first
  // that stems to a query term (Sphinx looks for the stems themselves in the text, and "weights_onli" is in
  // none), taken from one block of the page (a paragraph, a list item, a table row with its cells joined
  // by " · "), so that a table reads as its row, not as the run of all its cells.
  const excerpt = (html, terms, raw) => {
    const doc = new DOMParser().parseFromString(html, "text/html");
    const main = doc.querySelector("article.bd-article") || doc.querySelector('[role="main"]');
    if (!main) return null;
    main.querySelectorAll(".headerlink, script, style, nav, form, select, option, button, input, label").forEach((e) => e.remove());
    const flat = (t) => t.replace(/\s+/g, " ").trim();
    const blocks = [...main.querySelectorAll("p, li, tr, dt, dd, pre")]
      .filter((b) => b.tagName === "TR" || !(b.querySelector("p, li, tr, pre") || b.closest("tr")))
      .map((b) => (b.tagName === "TR" ? [...b.cells].map((c) => flat(c.textContent)).filter(Boolean).join(" · ") : flat(b.textContent)));
    // (the innermost blocks only; a cell's paragraph is read with its row) the first block with a word as
    // typed, else the first with a query term
    const typedIn = blocks.find((t) => telling(raw).some((w) => typedAt(t, w) >= 0));
    const cut = around(typedIn || blocks.find((t) => around(t, terms, [], 240)) || "", terms, raw, 240);
    return cut && marked(cut, terms, raw);
  };
  const excerpts = (q) => {
    const results = document.getElementById("search-results");
    if (!results || typeof Search === "undefined") return;
    const terms = questionTerms(q);
    const raw = typed(q);
    // each page's best section, unless a later one of the page has a sentence with more of the query's
    // words, or of the words as typed (an exact name beats a word it contains)
    // (a page's five best sections are enough: a long paste matches hundreds)
    const best = new Map();
    const seen = new Map();
    matchSections(q).forEach((s) => {
      const n = (seen.get(s.page) || 0) + 1;
      seen.set(s.page, n);
      if (n > 5) return;
      const count = bestSentence(s, terms, raw)[1];
      const kept = best.get(s.page);
      if (!kept || count > kept.count) best.set(s.page, { s, count });
    });
    const notebookPages = new Set(sections.map((s) => s.page));
    const root = document.documentElement.dataset.content_root || "";
    const annotate = (li) => {
      const a = li.querySelector(":scope > a");
      // an entry with a description (an object, an index entry) shows that instead, as in Sphinx
      if (!a || li.dataset.fnExcerpt || li.querySelector(":scope > span")) return;
      li.dataset.fnExcerpt = "1";
      const page = a.getAttribute("href").split(/[?#]/)[0];
      // an entry for one section of a page (Sphinx lists a heading that matches as its own entry)
      const anchored = a.hash && sections.find((s) => s.page === page && `#${s.anchor}` === a.hash);
      if (anchored || best.has(page)) {
        const p = snippet(anchored || best.get(page).s, terms, raw);
        if (p.textContent.trim()) li.appendChild(p);
      } else if (!notebookPages.has(page) && window.location.protocol !== "file:")
        fetch(root + page)
          .then((r) => (r.ok ? r.text() : ""))
          .then((html) => {
            const p = html && excerpt(html, terms, raw);
            if (p) li.appendChild(p);
          })
          .catch(() => null); // no excerpt, as from file://
    };
    results.querySelectorAll("li").forEach(annotate);
    new MutationObserver((records) =>
      records.forEach((r) => r.addedNodes.forEach((n) => n.tagName === "LI" && annotate(n)))
    ).observe(results, { childList: true, subtree: true });
  };

  // ------------------------------------------------------------------------------ did you mean
  // A word of four letters or more that no section has ("contigous") is matched against the words the
  // sections do have: the commonest one at edit distance 1 (2 for words of eight letters or more), if
  // any, is offered as a new search with that word replaced. Nothing is searched for the reader.
  let vocabulary = null; // word -> how often the sections use it
  const distance = (a, b, most) => {
    // optimal string alignment (Levenshtein, and an adjacent swap counts 1), given up past `most`
    if (Math.abs(a.length - b.length) > most) return most + 1;
    const d = [...Array(a.length + 1)].map((_, i) => [i, ...Array(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++) {
      let low = d[i][0];
      for (let j = 1; j <= b.length; j++) {
        const cost = a[i - 1] === b[j - 1] ? 0 : 1;
        d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        low = Math.min(low, d[i][j]);
      }
      if (low > most) return most + 1;
    }
    return d[a.length][b.length];
  };
  const corrected = (q) => {
    // a pasted message or a long question: its unknown words are names, paths and frames, not typos
    if (looksLikeError(q) || q.length > 100 || q.split(/\s+/).length > 8) return null;
    if (sections === null) buildSections();
    // the usual case, every word known, costs no vocabulary (0.3 s to build here)
    const ours = (w) => STOP.has(w) || ASK.has(stem(w)) || sdf.has(stem(w));
    if ((q.toLowerCase().match(/[\p{L}]{4,}/gu) || []).every(ours)) return null;
    if (vocabulary === null) {
      vocabulary = new Map();
      sections.forEach((s) =>
        (`${s.heading} ${s.text}`.toLowerCase().match(/[\p{L}]{4,}/gu) || []).forEach((w) =>
          vocabulary.set(w, (vocabulary.get(w) || 0) + 1)
        )
      );
    }
    let changed = false;
    const out = q.replace(/[\p{L}]{4,}/gu, (word, at) => {
      const w = word.toLowerCase();
      if (vocabulary.has(w) || ours(w) || w.length < 5) return word; // "bert" is not a typo of "best"
      if (/[/\\:.]/.test(q[at - 1] || "") || /[/\\]/.test(q[at + word.length] || "")) return word; // a path
      // another form of a word the sections have: Porter stems "dimensional" to "dimension", and that to
      // "dimens", the stem the sections' "dimension" has
      if (sdf.has(stem(stem(w)))) return word;
      const most = w.length >= 8 ? 2 : 1;
      let best = null;
      vocabulary.forEach((n, v) => {
        const d = distance(w, v, most);
        if (d <= most && (!best || d < best.d || (d === best.d && n > best.n))) best = { v, d, n };
      });
      if (!best) return word;
      changed = true;
      return word[0] === word[0].toUpperCase() ? best.v[0].toUpperCase() + best.v.slice(1) : best.v;
    });
    return changed ? out : null;
  };
  const offerCorrection = (q, better) => {
    if (!better) return;
    const p = document.createElement("p");
    p.id = "fieldnotes-did-you-mean";
    const a = document.createElement("a");
    a.href = `?q=${encodeURIComponent(better)}`;
    a.textContent = better;
    p.append("Did you mean ", a, "?");
    const results = document.getElementById("search-results");
    // above whatever is listed first (in document order)
    const first = document.querySelector("#fieldnotes-no-repro, #fieldnotes-section-hits, #fieldnotes-error-hits");
    results.parentNode.insertBefore(p, first || results);
  };
  window.FieldnotesSearch.corrected = corrected;

  const query = new URLSearchParams(window.location.search).get("q");
  install();
  const ready = () => {
    install();
    if (!query) return;
    const guess = showErrors(query);
    const better = corrected(query);
    // a misspelt query that no section matches shows the corrected one's sections, and says so
    if (!showSections(query, guess) && better) showSections(better, guess, query);
    offerCorrection(query, better);
    excerpts(query);
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
