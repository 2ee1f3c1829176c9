/*
 * Search: a word typed whole ranks the titles that have that exact word first ("sin" lists the sin
 * entry before sinh, "sum" before cumulative_sum).
 *
 * The theme's search (mkdocs-material 9, lunr in a web worker) appends a trailing wildcard to every
 * word of a query, so "sin" is searched as "sin*" and every title starting with "sin" scores as if it
 * matched: the rarer word (sinh) then wins. The theme removed its hook for transforming queries in
 * 9.0, so the query is amended where the page hands it to the worker: each plain word w of the query
 * also asks for the exact word in titles, `title:w^100` (lunr's query syntax; the theme leaves a
 * boosted term without a wildcard). The wildcard search is kept, so every result of the plain query
 * is still listed; a query that already uses lunr's syntax (+ - ~ ^ * : "...") is sent unchanged.
 *
 * The build boosts the entries of the API reference (docs_hooks/mkdocs_hooks.py: on_post_build),
 * so an entry named as typed also comes before a guide's section or a page with the word in its
 * title; `make docs-check` searches every entry's name in Chromium (docs_hooks/site_check.py).
 */
(() => {
  /** The theme worker's message type for a query (SearchMessageType.QUERY). */
  const QUERY = 2;
  /** How much more an exact word in a title weighs than a word it only begins. */
  const EXACT_TITLE_BOOST = 100;
  /** A query of plain words: letters, digits and underscores, separated by white space. */
  const PLAIN = /^[\p{L}\p{N}_]+(?:\s+[\p{L}\p{N}_]+)*$/u;

  /**
   * The query sent to the worker for what the reader typed.
   *
   * @param {string} typed - the search box's value
   * @returns {string} the same query, plus an exact title clause per word when it is plain words
   */
  const exactFirst = (typed) => {
    const words = typed.trim();
    if (!PLAIN.test(words)) return typed;
    const exact = words.split(/\s+/).map((word) => `title:${word}^${EXACT_TITLE_BOOST}`);
    return `${words} ${exact.join(" ")}`;
  };

  const send = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.type === QUERY && typeof message.data === "string") {
      message = { ...message, data: exactFirst(message.data) };
    }
    return send.call(this, message, ...rest);
  };
})();
