;; Renders weft's documentation into one static site that opens from the file system with no
;; network: the README, every module README, doc/ (guides, decisions, references) and the
;; CHANGELOG as HTML pages (commonmark-java, GitHub-style heading anchors and tables), the
;; Clojure API (every public var of every library namespace with its arglists and docstring,
;; the same vars build/api/clj_api.clj lists), and links to the Javadoc and KDoc that
;; ./weft docs unpacked beside it. Run by ./weft docs (the launcher), which puts commonmark and
;; every weft library module on the classpath.
;;
;; Arguments: ROOT OUT API_INDEX_JSON
;;   ROOT            the checkout
;;   OUT             the site's folder (target/docs)
;;   API_INDEX       a file of "kind<TAB>name<TAB>relative path" lines: the Javadoc and KDoc
;;                   folders the launcher unpacked under OUT (kind: java or kotlin)
;;
;; Links: a relative link to a Markdown file becomes a link to its page (anchor kept); a link to
;; another file of the checkout (a source file, a POM) copies that file into the site; a link to
;; a folder gets a page listing the folder. So every internal link of the site resolves, which
;; the browser test (weft-test-browser's DocsSiteTest) checks.
(ns weft.docs.site
  (:require [clojure.java.io :as io]
            [clojure.string :as str])
  (:import (java.io File)
           (org.commonmark.ext.gfm.tables TablesExtension)
           (org.commonmark.ext.heading.anchor HeadingAnchorExtension)
           (org.commonmark.node Image Link Node)
           (org.commonmark.parser Parser)
           (org.commonmark.renderer.html HtmlRenderer)))

(set! *warn-on-reflection* true)

(def ^:private extensions [(TablesExtension/create) (HeadingAnchorExtension/create)])
(def ^:private ^Parser parser (-> (Parser/builder) (.extensions extensions) (.build)))
(def ^:private ^HtmlRenderer renderer (-> (HtmlRenderer/builder) (.extensions extensions) (.build)))

(def ^:private style
  "body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:0 auto;padding:0 1.5em 3em;color:#1b1f24}
nav{padding:.8em 0;border-bottom:1px solid #d0d7de;margin-bottom:1em}nav a{margin-right:1em}
code,pre{font:13px ui-monospace,monospace;background:#f6f8fa}pre{padding:.8em;overflow:auto}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.3em .6em;vertical-align:top}
h1,h2,h3{line-height:1.25}.var{margin:1.5em 0}.var h3{margin-bottom:.2em}.args{color:#57606a}")

(defn- rel
  "The path of `to` relative to the folder of `from` (both relative to the site's root), '/'-separated."
  [^String from ^String to]
  (let [base (.getParent (.toPath (io/file from)))
        p (if base (.relativize base (.toPath (io/file to))) (.toPath (io/file to)))]
    (str/replace (str p) File/separatorChar \/)))

(defn- page
  "A whole HTML page: title, the site's nav (relative to `path`), and `body`."
  [path title body]
  (str "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" title " - weft</title>"
       "<style>" style "</style></head><body><nav>"
       "<a href=\"" (rel path "index.html") "\">weft docs</a>"
       "<a href=\"" (rel path "README.html") "\">README</a>"
       "<a href=\"" (rel path "doc/guides/index.html") "\">guides</a>"
       "<a href=\"" (rel path "api/index.html") "\">API</a></nav>"
       body "</body></html>"))

(defn- escape [s] (-> (str s) (str/replace "&" "&amp;") (str/replace "<" "&lt;") (str/replace ">" "&gt;")))

(defn- html-path [^String md] (str/replace md #"\.md$" ".html"))

;; --- links -----------------------------------------------------------------------------------

(defn- external? [^String href] (boolean (re-find #"^([a-z][a-z0-9+.-]*:|//|#)" href)))

(defn- normalize
  "The checkout-relative path `href` names from the Markdown file `from`, or nil when it leaves
  the checkout."
  [root ^String from ^String href]
  (let [base (when-not (str/starts-with? href "/") (.getParent (io/file from)))
        child (str/replace href #"^/+" "")
        p (.normalize (.toPath (if base (io/file base child) (io/file child))))]
    (when-not (str/starts-with? (str p) "..")
      (str/replace (str p) File/separatorChar \/))))

(defn- walk
  "Calls f on `node` and every node below it, depth first."
  [^Node node f]
  (f node)
  (loop [child (.getFirstChild node)]
    (when child
      (walk child f)
      (recur (.getNext child)))))

(defn- rewrite-links!
  "Rewrites the relative links of the document `doc` (from Markdown file `from`): Markdown files
  to their pages, others to the copies `wanted` collects (a set of checkout paths in an atom)."
  [root ^String from ^Node doc wanted]
  (let [fix (fn [^String href]
              (if (or (str/blank? href) (external? href))
                href
                (let [[target anchor] (str/split href #"#" 2)
                      path (normalize root from target)
                      f (when path (io/file root path))]
                  (cond
                    (nil? f) href
                    (str/ends-with? path ".md") (do (when (.exists f) (swap! wanted conj path))
                                                    (str (rel from (html-path path)) (when anchor (str "#" anchor))))
                    (.isDirectory f) (do (swap! wanted conj path)
                                         (rel from (str path "/index.html")))
                    (.exists f) (do (swap! wanted conj path) (str (rel from path) (when anchor (str "#" anchor))))
                    :else href))))]
    (walk doc (fn [n]
                (cond
                  (instance? Link n) (.setDestination ^Link n (fix (.getDestination ^Link n)))
                  (instance? Image n) (.setDestination ^Image n (fix (.getDestination ^Image n))))))))

;; --- pages -----------------------------------------------------------------------------------

(defn- markdown-files [^File root]
  (let [top (for [f ["README.md" "CHANGELOG.md"] :when (.exists (io/file root f))] f)
        modules (for [^File d (sort (.listFiles root))
                      :when (and (.isDirectory d) (.exists (io/file d "README.md")))
                      :when (not (#{"target" "build"} (.getName d)))]
                  (str (.getName d) "/README.md"))
        examples (for [^File d (sort (.listFiles (io/file root "examples")))
                       :when (.exists (io/file d "README.md"))]
                   (str "examples/" (.getName d) "/README.md"))
        docs (for [dir ["doc" "doc/guides" "doc/decisions"]
                   ^File f (sort (.listFiles (io/file root dir)))
                   :when (str/ends-with? (.getName f) ".md")]
               (str dir "/" (.getName f)))]
    (concat top modules examples docs)))

(defn- title-of [^String markdown fallback]
  (or (second (re-find #"(?m)^#\s+(.+)$" markdown)) fallback))

(defn- render-markdown!
  "Writes the page of Markdown file `md` and returns its title."
  [root out md wanted]
  (let [text (slurp (io/file root md))
        doc (.parse parser text)]
    (rewrite-links! root md doc wanted)
    (let [title (title-of text md)
          target (io/file out (html-path md))]
      (io/make-parents target)
      (spit target (page (html-path md) (escape title) (.render renderer doc)))
      title)))

(defn- copy-wanted!
  "Copies into the site every non-Markdown file of `paths` (checkout paths a page links to), and
  writes a listing page for every folder among them; what a listing links to is added to the
  atom `wanted`."
  [root out paths wanted]
  (doseq [path (sort paths)
          :let [f (io/file root path)]]
    (cond
      (str/ends-with? path ".md")              ; a page of its own, beyond the usual ones
      (when-not (.exists (io/file out (html-path path)))
        (render-markdown! root out path wanted))

      (.isDirectory f)
      (let [index (str path "/index.html")
            entries (sort-by #(.getName ^File %) (.listFiles f))]
        (io/make-parents (io/file out index))
        (spit (io/file out index)
              (page index (escape path)
                    (str "<h1>" (escape path) "/</h1><ul>"
                         (str/join (for [^File e entries
                                         :let [n (.getName e)
                                               md? (str/ends-with? n ".md")]
                                         :when (not (#{"target" ".cpcache"} n))]
                                     (do (when-not (.isDirectory e) (swap! wanted conj (str path "/" n)))
                                         (str "<li><a href=\"" (cond md? (html-path n) (.isDirectory e) (str n "/index.html") :else n)
                                              "\">" (escape n) (when (.isDirectory e) "/") "</a></li>"))))
                         "</ul>")))
        (doseq [^File e entries
                :when (and (.isDirectory e) (not (#{"target" ".cpcache"} (.getName e))))]
          (swap! wanted conj (str path "/" (.getName e)))))

      :else
      (let [target (io/file out path)]
        (io/make-parents target)
        (io/copy f target)))))

;; --- the Clojure API -------------------------------------------------------------------------

(defn- clojure-namespaces
  "The public namespaces (not ^:no-doc) of every Clojure library module: [module ns-symbol]."
  [^File root modules]
  (for [m modules
        :let [src (io/file root m "src/main/clojure")]
        :when (.isDirectory src)
        ^File f (sort (file-seq src))
        :when (str/ends-with? (.getName f) ".clj")
        :let [n (-> (str (.relativize (.toPath src) (.toPath f)))
                    (str/replace #"\.clj$" "") (str/replace File/separator ".") (str/replace "_" "-") symbol)
              _ (require n)]
        :when (not (:no-doc (meta (find-ns n))))]
    [m n]))

(defn- render-namespace! [out [module n]]
  (let [path (str "api/clojure/" n ".html")
        ns-doc (:doc (meta (find-ns n)))
        vars (for [[sym v] (sort-by key (ns-publics n))
                   :let [m (meta v)]
                   :when (not (:no-doc m))]
               (str "<div class=\"var\" id=\"" (escape sym) "\"><h3>" (escape sym) (when (:macro m) " <small>(macro)</small>") "</h3>"
                    (when-let [a (:arglists m)] (str "<div class=\"args\"><code>" (escape (str/join " " a)) "</code></div>"))
                    "<pre>" (escape (or (:doc m) "(no docstring)")) "</pre></div>"))]
    (io/make-parents (io/file out path))
    (spit (io/file out path)
          (page path (escape n)
                (str "<h1>" (escape n) "</h1><p>module <code>" module "</code></p><pre>" (escape ns-doc) "</pre>"
                     (str/join vars))))
    (str "<li><a href=\"clojure/" n ".html\">" n "</a> (" module ")</li>")))

;; --- KDoc opened from the file system ---------------------------------------------------------

(defn- inline-svg-urls!
  "Replaces each `url(../images/x.svg)` of the CSS files under `dir` with the SVG itself as a data
  URL: Chromium treats a CSS mask loaded from a file: URL as a cross-origin request and refuses it
  (a console error on every Dokka page opened without a web server)."
  [^File dir]
  (doseq [^File css (file-seq dir)
          :when (str/ends-with? (.getName css) ".css")]
    (let [text (slurp css)
          inlined (str/replace text #"url\((['\"]?)([^)'\"]+\.svg)\1\)"
                               (fn [[whole _ href]]
                                 (let [svg (io/file (.getParentFile css) href)]
                                   (if (.isFile svg)
                                     (str "url(\"data:image/svg+xml;base64,"
                                          (.encodeToString (java.util.Base64/getEncoder) (java.nio.file.Files/readAllBytes (.toPath svg)))
                                          "\")")
                                     whole))))]
      (when (not= text inlined) (spit css inlined)))))

(def ^:private dokka-fetched
  "The files Dokka's scripts fetch (its search index and its navigation tree): Chromium refuses a
  fetch from a page opened from the file system."
  ["scripts/pages.json" "navigation.html"])

(defn- serve-fetches-offline!
  "Writes scripts/offline.js into the Dokka set rooted at `dir`: it answers Dokka's fetches of
  `dokka-fetched` with the files' text, and every page of the set loads it first in its head. So
  KDoc's search and navigation work without a web server."
  [^File dir]
  (let [files (for [f dokka-fetched :let [file (io/file dir f)] :when (.isFile file)] [f (slurp file)])]
    (when (seq files)
      (spit (io/file dir "scripts/offline.js")
            (str "// Written by weft's build/docs/site.clj: what Dokka fetches, for pages opened from the file system.\n"
                 "(function () {\n"
                 "  var files = {" (str/join ", " (for [[f text] files] (str (pr-str f) ": " (pr-str text)))) "};\n"
                 "  var fetch = window.fetch;\n"
                 "  window.fetch = function (url, options) {\n"
                 "    for (var name in files) {\n"
                 "      if (String(url).endsWith(name)) {\n"
                 "        var type = name.endsWith('.json') ? 'application/json' : 'text/html';\n"
                 "        return Promise.resolve(new Response(files[name], {headers: {'Content-Type': type}}));\n"
                 "      }\n"
                 "    }\n"
                 "    return fetch.apply(this, arguments);\n"
                 "  };\n"
                 "})();\n"))
      (doseq [^File html (file-seq dir)
              :when (str/ends-with? (.getName html) ".html")
              :let [text (slurp html)
                    src (rel (str (.relativize (.toPath dir) (.toPath html))) "scripts/offline.js")]
              :when (and (str/includes? text "<head>") (not (str/includes? text "scripts/offline.js")))]
        (spit html (str/replace-first text "<head>" (str "<head><script src=\"" src "\"></script>")))))))

;; --- main ------------------------------------------------------------------------------------

(defn -main [root-path out-path api-index]
  (let [root (io/file root-path)
        out (io/file out-path)
        wanted (atom #{})
        mds (vec (markdown-files root))
        titles (into {} (for [md mds] [md (render-markdown! root out md wanted)]))
        apis (for [l (str/split-lines (slurp api-index)) :when (not (str/blank? l))] (str/split l #"\t"))
        clj-modules (for [^File d (sort (.listFiles root))
                          :when (.isDirectory (io/file d "src/main/clojure"))
                          :when (not (#{"weft-lab" "weft-bench" "weft-test-browser"} (.getName d)))]
                      (.getName d))
        nss (clojure-namespaces root clj-modules)
        ns-items (mapv #(render-namespace! out %) nss)
        _ (inline-svg-urls! (io/file out "api/kotlin"))
        _ (doseq [[kind _ p] apis :when (= kind "kotlin")] (serve-fetches-offline! (io/file out p)))
        guides (filter #(str/starts-with? % "doc/guides/") mds)
        decisions (filter #(str/starts-with? % "doc/decisions/") mds)
        link (fn [from md] (str "<li><a href=\"" (rel from (html-path md)) "\">" (escape (get titles md)) "</a></li>"))]
    (loop [done #{}]                      ; a listed folder may want more files and folders
      (let [todo (remove done @wanted)]
        (when (seq todo)
          (copy-wanted! root out todo wanted)
          (recur (into done todo)))))
    (spit (io/file out "api/index.html")
          (page "api/index.html" "API"
                (str "<h1>API</h1><h2>Java (Javadoc)</h2><ul>"
                     (str/join (for [[kind n p] apis :when (= kind "java")] (str "<li><a href=\"" (rel "api/index.html" (str p "/index.html")) "\">" n "</a></li>")))
                     "</ul><h2>Kotlin (KDoc)</h2><ul>"
                     (str/join (for [[kind n p] apis :when (= kind "kotlin")] (str "<li><a href=\"" (rel "api/index.html" (str p "/index.html")) "\">" n "</a></li>")))
                     "</ul><h2>Clojure</h2><ul>" (str/join ns-items) "</ul>")))
    (io/make-parents (io/file out "doc/guides/index.html"))
    (spit (io/file out "doc/guides/index.html")
          (page "doc/guides/index.html" "Guides"
                (str "<h1>Guides</h1><ul>" (str/join (map #(link "doc/guides/index.html" %) guides)) "</ul>")))
    (spit (io/file out "index.html")
          (page "index.html" "weft"
                (str "<h1>weft documentation</h1>"
                     "<p>Virtual threads made practical, fast and safe from Java, Clojure and Kotlin. "
                     "Start with the <a href=\"README.html\">README</a>.</p>"
                     "<h2>Guides</h2><ul>" (str/join (map #(link "index.html" %) guides)) "</ul>"
                     "<h2>API</h2><ul><li><a href=\"api/index.html\">Java, Kotlin and Clojure API</a></li></ul>"
                     "<h2>Modules</h2><ul>"
                     (str/join (map #(link "index.html" %) (filter #(and (re-find #"^weft-[^/]+/README\.md$" %)
                                                             (not (re-find #"^weft-(lab|bench|test-browser)/" %))) mds)))
                     "</ul><h2>Reference</h2><ul>"
                     (str/join (map #(link "index.html" %) (filter #(re-find #"^doc/[^/]+\.md$" %) mds)))
                     (link "index.html" "CHANGELOG.md")
                     "</ul><h2>Decisions</h2><ul>" (str/join (map #(link "index.html" %) decisions)) "</ul>")))
    (println (str "weft docs: " (count mds) " pages, " (count nss) " Clojure namespaces, "
                  (count apis) " Javadoc/KDoc sets, " (count @wanted) " linked files into " out))
    (shutdown-agents)))

(apply -main *command-line-args*)
