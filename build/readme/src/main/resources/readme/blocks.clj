(ns readme.blocks
  "Runs every ```java, ```clojure and ```kotlin block of the Markdown files it is given, as
  written, and prints one line per block, each failure as `file:line: message`, and last
  `N passed, N failed`; exits 1 when a block failed. The rules (what a block may assume, the
  fixtures, how a JUnit class or a Kotlin file runs): doc/readme-blocks.md.

  Java blocks go through JShell (jdk.jshell, in this JVM) fed line by line as the jshell tool
  reads them; Clojure blocks are read and evaluated form by form in a namespace of their own;
  Kotlin blocks are compiled together by the Kotlin compiler in this JVM, then each one's main
  runs. The classpath is this JVM's: every weft library module, the fixtures, the JUnit launcher
  and the Kotlin compiler (build/readme/pom.xml)."
  (:require [clojure.java.io :as io]
            [clojure.string :as str])
  (:import (clojure.lang LineNumberingPushbackReader)
           (java.io ByteArrayOutputStream File PrintStream StringReader)
           (java.lang.reflect InvocationTargetException Method)
           (java.net URL URLClassLoader)
           (java.nio.file Files)
           (java.nio.file.attribute FileAttribute)
           (java.util Locale)
           (javax.tools Diagnostic Diagnostic$Kind DiagnosticCollector ToolProvider)
           (java.util.concurrent ExecutionException Future TimeUnit TimeoutException)
           (jdk.jshell Diag EvalException JShell Snippet Snippet$Status SnippetEvent
                       SourceCodeAnalysis$CompletionInfo TypeDeclSnippet
                       UnresolvedReferenceException)
           (org.jetbrains.kotlin.cli.common ExitCode)
           (org.jetbrains.kotlin.cli.jvm K2JVMCompiler)))

(set! *warn-on-reflection* true)

(def ^:private block-timeout-s
  "The longest a block may run; a block that hangs fails instead of hanging the build."
  120)

;; --- finding the blocks ----------------------------------------------------------------------

(def ^:private fence
  "A fence line: its indentation, its language and an optional second word of the info string
  (```java jshell marks a JShell session)."
  #"^(\s*)```\s*([A-Za-z0-9_+.-]*)(?:\s+([A-Za-z0-9_+.-]+))?\s*$")

(defn blocks
  "The fenced code blocks of the Markdown file `path` in the languages the runner runs:
  maps of :file, :line (the 1-based line of the block's first line of code), :lang, :session (the
  info string's second word, e.g. \"jshell\", or nil) and :lines (the code, without the fence's
  indentation)."
  [path]
  (let [lines (str/split-lines (slurp path))]
    (loop [i 0, open nil, found []]
      (if (>= i (count lines))
        found
        (let [line (nth lines i)
              m (re-matches fence line)]
          (cond
            (and open m (str/blank? (nth m 2)))
            (recur (inc i) nil (cond-> found (#{"java" "clojure" "kotlin"} (:lang open)) (conj open)))

            open
            (let [indent (:indent open)
                  code (if (str/starts-with? line indent) (subs line (count indent)) (str/triml line))]
              (recur (inc i) (update open :lines conj code) found))

            m
            (recur (inc i) {:file path :line (+ i 2) :lang (nth m 2) :session (nth m 3) :indent (nth m 1) :lines []} found)

            :else (recur (inc i) nil found)))))))

;; --- running one block with its output kept -------------------------------------------------

(defn- with-captured-output
  "Calls f with System.out, System.err and *out* going to a buffer. Returns [result-or-throwable
  output], waiting at most block-timeout-s."
  [f]
  (let [buffer (ByteArrayOutputStream.)
        stream (PrintStream. buffer true "UTF-8")
        out System/out
        err System/err]
    (System/setOut stream)
    (System/setErr stream)
    (try
      (let [^Future task (future (binding [*out* (io/writer stream) *err* (io/writer stream)]
                                   (try (f) (finally (flush)))))
            result (try (.get task block-timeout-s TimeUnit/SECONDS)
                        (catch TimeoutException _
                          (.cancel task true)
                          [(str "did not finish within " block-timeout-s " s")])
                        (catch ExecutionException e (.getCause e)))]
        [result (.toString buffer "UTF-8")])
      (finally
        (System/setOut out)
        (System/setErr err)))))

(defn- problem [file line message] (str file ":" line ": " message))

(defn- stack-text
  "t's stack trace down to where the runner called the block, at most 25 lines."
  [^Throwable t]
  (let [w (java.io.StringWriter.)]
    (.printStackTrace t (java.io.PrintWriter. w))
    (->> (str/split-lines (str w))
         (take-while #(not (re-find #"at (readme\.blocks|clojure\.lang\.Compiler\.eval|java\.base/jdk\.internal\.reflect|REPL\.\$JShell\$\d+\.do_it\$)" %)))
         (take 25)
         (str/join "\n"))))

;; --- Java: JShell ----------------------------------------------------------------------------

(def ^:private jshell-default-imports
  "The imports of the jshell tool's DEFAULT startup, which ./weft jshell users get."
  (str/join "\n" (map #(str "import " % ".*;")
                      ["java.io" "java.math" "java.net" "java.nio.file" "java.util"
                       "java.util.concurrent" "java.util.function" "java.util.prefs"
                       "java.util.regex" "java.util.stream"])))

(defn- line-at
  "The block line of character `pos` of a snippet that starts at block line `start`."
  [^String source start pos]
  (let [code (str/trimr source)]     ; a position past the code (some diagnostics) is its last line
    (+ start (count (filter #(= \newline %) (subs code 0 (max 0 (min pos (count code)))))))))

(defn- deprecation-code?
  "True for a compiler diagnostic code that reports the use of a deprecated API: a README block
  must not teach a name that is going away (doc/readme-blocks.md)."
  [^String code]
  (boolean (and code (str/includes? code "deprecat"))))

(defn- snippet-problems
  "What went wrong with the events of evaluating `source` (at file line `start`), or nil."
  [^JShell js file start ^String source events]
  (seq
   (for [^SnippetEvent e events
         :when (nil? (.causeSnippet e))
         :let [^Snippet s (.snippet e)
               status (.status e)
               ex (.exception e)
               diags (iterator-seq (.iterator (.diagnostics js s)))
               errors (concat (when (= status Snippet$Status/REJECTED) (filter #(.isError ^Diag %) diags))
                              (filter #(and (not (.isError ^Diag %)) (deprecation-code? (.getCode ^Diag %))) diags))
               unresolved (when (#{Snippet$Status/RECOVERABLE_DEFINED Snippet$Status/RECOVERABLE_NOT_DEFINED} status)
                            (iterator-seq (.iterator (.unresolvedDependencies js s))))]
         msg (concat
              (for [^Diag d errors]
                (problem file (line-at source start (.getStartPosition d))
                         (str "error: " (.getMessage d Locale/ROOT))))
              (when (and (= status Snippet$Status/REJECTED) (empty? errors))
                [(problem file start "rejected by JShell")])
              (when (seq unresolved)
                [(problem file start (str "uses what is not defined: " (str/join ", " unresolved)))])
              (cond
                (instance? EvalException ex)
                [(problem file start (str "threw " (.getExceptionClassName ^EvalException ex) ": "
                                          (.getMessage ^Exception ex) "\n" (stack-text ex)))]
                (instance? UnresolvedReferenceException ex)
                [(problem file start (str "uses what is not defined: "
                                          (str/join ", " (iterator-seq (.iterator (.unresolvedDependencies js (.getSnippet ^UnresolvedReferenceException ex)))))))]
                ex [(problem file start (str "threw " ex))]))]
     msg)))

(defn- eval-java
  "Evaluates `source` in `js` as one snippet at a time (as JShell's analysis splits it); returns
  the problems, or nil."
  [^JShell js file start ^String source]
  (loop [src source, problems []]
    (let [^SourceCodeAnalysis$CompletionInfo info (.analyzeCompletion (.sourceCodeAnalysis js) src)]
      (if (or (str/blank? src) (not (.isComplete (.completeness info))))
        (cond-> problems (not (str/blank? src)) (conj (problem file start "incomplete statement")))
        (let [snippet (.source info)
              found (snippet-problems js file start snippet (.eval js snippet))]
          (recur (.remaining info) (into problems found)))))))

(defn- feed-lines
  "Feeds the block's lines to `js` the way the jshell tool reads typed or pasted input: line by
  line, evaluating as soon as what was read so far is a complete snippet (a line that could end a
  statement ends it, so a next line starting with `.` is a new, broken statement). Returns the
  problems."
  [^JShell js file first-line lines]
  (let [analysis (.sourceCodeAnalysis js)]
    (loop [[line & more :as left] lines, n first-line, pending "", start nil, problems []]
      (if (empty? left)
        (cond-> problems
          (not (str/blank? pending)) (conj (problem file start "the block ends inside an incomplete statement (jshell would wait for more)")))
        (let [text (if (str/blank? pending) (str line "\n") (str pending line "\n"))
              start (if (str/blank? pending) n start)
              ^SourceCodeAnalysis$CompletionInfo info (.analyzeCompletion analysis text)]
          (cond
            (str/blank? text) (recur more (inc n) "" nil problems)
            (.isComplete (.completeness info))
            (let [snippet (.source info)
                  found (snippet-problems js file start snippet (.eval js snippet))
                  rest-text (.remaining info)]
              (recur more (inc n) rest-text (when-not (str/blank? rest-text) n) (into problems found)))
            :else (recur more (inc n) text start problems)))))))

(defn- junit-classes
  "The classes the block declared that have JUnit tests: these run after the block."
  [^JShell js]
  (for [^TypeDeclSnippet s (iterator-seq (.iterator (.types js)))
        :when (and (= Snippet$Status/VALID (.status js s))
                   (re-find #"@(Test|ParameterizedTest|RepeatedTest)\b" (.source s)))]
    (.name s)))

(defn run-java
  "Runs a Java block in a fresh JShell: the jshell tool's default imports, then the fixtures,
  then the block line by line, then every JUnit class it declared. Returns the problems."
  [{:keys [file line lines]}]
  (with-open [js (-> (JShell/builder) (.executionEngine "local")
                     (.compilerOptions (into-array String ["-Xlint:deprecation"])) (.build))]
    (.addToClasspath js (System/getProperty "java.class.path"))
    (let [setup (concat (eval-java js "(jshell default imports)" 1 jshell-default-imports)
                        (eval-java js "build/readme/src/main/resources/readme/fixtures.jsh" 1
                                   (slurp (io/resource "readme/fixtures.jsh"))))]
      (if (seq setup)
        setup
        (let [problems (feed-lines js file line lines)]
          (if (seq problems)
            problems
            (vec (mapcat #(eval-java js file line (str "readme.runner.Tests.run(" % ".class);"))
                         (junit-classes js)))))))))

;; --- Java: a block that is a compilation unit -------------------------------------------------

(defn- temp-dir ^File [prefix]
  (.toFile (Files/createTempDirectory prefix (make-array FileAttribute 0))))

(def ^:private type-decl
  "A top-level type declaration at the start of a line: group 1 is `public` when present, group 2
  the type's name."
  #"(?m)^(public\s+)?(?:(?:final|abstract|sealed|non-sealed|strictfp)\s+)*(?:class|record|interface|enum|@interface)\s+([A-Za-z_$][A-Za-z0-9_$]*)")

(defn- java-file-types
  "The names of the top-level types a Java source declares, the public one first."
  [^String source]
  (let [found (re-seq type-decl source)]
    (distinct (map #(nth % 2) (concat (filter second found) found)))))

(defn- java-package [^String source]
  (second (re-find #"(?m)^\s*package\s+([A-Za-z0-9_.]+)\s*;" source)))

(defn- junit-test-class?
  "True when `c` declares a method annotated with a JUnit test annotation."
  [^Class c]
  (some (fn [^Method m] (some #(#{"Test" "ParameterizedTest" "RepeatedTest"} (.getSimpleName (.annotationType ^java.lang.annotation.Annotation %)))
                              (.getAnnotations m)))
        (.getDeclaredMethods c)))

(defn- main-method ^Method [^Class c]
  (try (let [m (.getDeclaredMethod c "main" (into-array Class [(Class/forName "[Ljava.lang.String;")]))]
         (when (java.lang.reflect.Modifier/isStatic (.getModifiers m)) (.setAccessible m true) m))
       (catch NoSuchMethodException _ nil)))

(defn run-java-file
  "Runs a Java block that is a compilation unit, as a user saves it to a .java file: compiled by
  javac in this JVM against the runner's classpath (every weft module, JUnit), with deprecation
  warnings reported as problems; then its public (or first) type's `main` runs, and every top-level
  type with JUnit tests runs on the JUnit Platform. Returns the problems."
  [{:keys [file line lines]}]
  (let [source (str/join "\n" lines)
        types (java-file-types source)]
    (if (empty? types)
      [(problem file line (str "declares no class: a Java block is a file a user saves (a class with its imports), "
                               "or a JShell session marked ```java jshell"))]
      (let [dir (temp-dir "weft-readme-java")
            pkg (java-package source)
            src (io/file dir "src" (str (str/replace (or pkg "") "." "/")) (str (first types) ".java"))
            out (io/file dir "classes")
            diagnostics (DiagnosticCollector.)
            ^javax.tools.JavaCompiler compiler (ToolProvider/getSystemJavaCompiler)]
        (io/make-parents src)
        (.mkdirs out)
        (spit src source)
        (with-open [^javax.tools.StandardJavaFileManager fm (.getStandardFileManager compiler diagnostics nil nil)]
          (let [ok (.call (.getTask compiler nil fm diagnostics
                                    ["-classpath" (System/getProperty "java.class.path") "-d" (str out)
                                     "-Xlint:deprecation" "-proc:none"]
                                    nil (.getJavaFileObjects fm ^"[Ljava.io.File;" (into-array File [src]))))
                problems (for [^Diagnostic d (.getDiagnostics diagnostics)
                               :when (or (= Diagnostic$Kind/ERROR (.getKind d))
                                         (deprecation-code? (.getCode d)))]
                           (problem file (+ line (max 0 (dec (.getLineNumber d))))
                                    (str (if (= Diagnostic$Kind/ERROR (.getKind d)) "error: " "deprecated: ")
                                         (.getMessage d Locale/ROOT))))]
            (cond
              (seq problems) (vec problems)
              (not ok) [(problem file line "javac failed without a diagnostic")]
              :else
              (let [loader (URLClassLoader. (into-array URL [(.toURL (.toURI out))]) (ClassLoader/getSystemClassLoader))
                    classes (map #(Class/forName (str (when pkg (str pkg ".")) %) true loader) types)
                    ^Method main (some main-method classes)
                    tests (filter junit-test-class? classes)]
                (if (and (nil? main) (empty? tests))
                  [(problem file line (str (first types) " has no main method and no JUnit test: nothing of the block would run"))]
                  (try
                    (when main (.invoke main nil (object-array [(make-array String 0)])))
                    (doseq [^Class c tests] (readme.runner.Tests/run c))
                    []
                    (catch InvocationTargetException e
                      [(problem file line (str "threw " (stack-text (.getCause e))))])
                    (catch AssertionError e
                      [(problem file line (str "tests failed: " (.getMessage e)))])))))))))))

;; --- Clojure ---------------------------------------------------------------------------------

(def ^:private block-ns-counter (atom 0))

(defn run-clojure
  "Evaluates a Clojure block form by form in a namespace of its own that refers clojure.core and
  readme.fixtures and imports the fixture classes. Returns the problems (the first failing form
  ends the block)."
  [{:keys [file line lines]}]
  (require 'readme.fixtures)
  (let [block-ns (create-ns (symbol (str "readme.block-" (swap! block-ns-counter inc))))
        rdr (LineNumberingPushbackReader. (StringReader. (str/join "\n" lines)))]
    (.setLineNumber rdr (int line))
    (binding [*ns* block-ns, *file* file]
      (refer-clojure)
      (refer 'readme.fixtures)
      (import '(readme.fixtures Cache LegacyConfig))
      (loop []
        (let [at (.getLineNumber rdr)
              form (try (read {:eof ::eof} rdr)
                        (catch Exception e [::unreadable e]))]
          (cond
            (= ::eof form) []
            (and (vector? form) (= ::unreadable (first form)))
            [(problem file at (str "cannot read: " (ex-message (second form))))]
            :else
            (let [form-line (or (:line (meta form)) at)
                  failure (try (eval form) nil (catch Throwable t t))]
              (if failure
                [(problem file form-line (str "threw " (stack-text failure)))]
                (recur)))))))))

;; --- Kotlin ----------------------------------------------------------------------------------

(defn- kotlin-source
  "The file a Kotlin block compiles as: `package readme.k<n>`, then the block; a block without a
  `fun main` becomes the body of one (its leading imports and comments stay on top). Returns
  [source line-map] where line-map gives the block's file line of each source line (1-based)."
  [n {:keys [line lines]}]
  (let [numbered (map vector lines (iterate inc line))
        has-main (some #(re-find #"^\s*fun\s+main\s*\(" %) lines)
        [head body] (if has-main
                      [numbered nil]
                      (split-with (fn [[l]] (or (str/blank? l) (re-find #"^\s*(import\s|//)" l))) numbered))
        out (concat [[(str "package readme.k" n) nil]]
                    head
                    (when-not has-main
                      (concat [["fun main() {" nil]] body [["}" nil]])))]
    [(str/join "\n" (map first out)) (vec (map second out))]))

(defn run-kotlin-blocks
  "Compiles every Kotlin block in one run of the Kotlin compiler (in this JVM, no daemon), then
  runs each block's main. Returns a map from block to its problems."
  [kotlin-blocks]
  (when (seq kotlin-blocks)
    (let [dir (temp-dir "weft-readme-kotlin")
          out (io/file dir "classes")
          files (vec (for [[n b] (map-indexed vector kotlin-blocks)]
                       (let [[source line-map] (kotlin-source n b)
                             f (io/file dir (str "k" n) "Block.kt")]
                         (io/make-parents f)
                         (spit f source)
                         {:block b :file f :line-map line-map :main (str "readme.k" n ".BlockKt")})))
          messages (ByteArrayOutputStream.)
          code (.exec (K2JVMCompiler.) (PrintStream. messages true "UTF-8")
                      ^"[Ljava.lang.String;"
                      (into-array String (concat ["-no-stdlib" "-no-reflect" "-jvm-target" "21"
                                                  "-classpath" (System/getProperty "java.class.path")
                                                  "-d" (str out)]
                                                 (map #(str (:file %)) files))))
          errors (for [l (str/split-lines (.toString messages "UTF-8"))
                       :let [[_ path ln msg] (re-find #"^(.*Block\.kt):(\d+):\d+: error: (.*)$" l)]
                       :when path
                       :let [f (first (filter #(= (.getCanonicalPath ^File (:file %)) (.getCanonicalPath (io/file path))) files))]
                       :when f]
                   [(:block f) (problem (:file (:block f)) (or (get (:line-map f) (dec (parse-long ln))) (:line (:block f))) (str "error: " msg))])]
      (if (not= code ExitCode/OK)
        (let [by-block (group-by first errors)]
          (into {} (for [{:keys [block]} files]
                     [block (or (seq (map second (by-block block)))
                                [(problem (:file block) (:line block)
                                          (if (seq errors)
                                            "not run: another Kotlin block failed to compile"
                                            (str "the Kotlin compiler failed: " (.toString messages "UTF-8"))))])])))
        (let [loader (URLClassLoader. (into-array URL [(.toURL (.toURI out))]) (ClassLoader/getSystemClassLoader))]
          (into {} (for [{:keys [block main line-map]} files]
                     [block (fn []
                              (let [^Method m (.getMethod (Class/forName ^String main true loader) "main"
                                                          ^"[Ljava.lang.Class;" (into-array Class [(Class/forName "[Ljava.lang.String;")]))]
                                (try (.invoke m nil (object-array [(make-array String 0)]))
                                     []
                                     (catch InvocationTargetException e
                                       (let [cause (.getCause e)
                                             frame (first (filter #(= "Block.kt" (.getFileName ^StackTraceElement %)) (.getStackTrace cause)))
                                             at (when frame (get line-map (dec (.getLineNumber ^StackTraceElement frame))))]
                                         [(problem (:file block) (or at (:line block)) (str "threw " (stack-text cause)))])))))])))))))

;; --- main ------------------------------------------------------------------------------------

(def ^:private deprecation-warning
  "A line weft prints when a caller uses a deprecated name (weft.impl.options, Java's one-time
  warnings)."
  #"(?m)^.*WARNING:.*\bdeprecated\b.*$")

(defn- run-block
  "Runs `task` (returns problems) with its output kept; prints the block's line and, when it
  failed, its problems and output. Returns true when it passed."
  [{:keys [file line lang]} task]
  (let [start (System/nanoTime)
        [result output] (with-captured-output task)
        problems (cond (instance? Throwable result) [(problem file line (str "the runner failed: " (stack-text result)))]
                       :else result)
        problems (cond-> (vec problems)
                   (re-find deprecation-warning output)
                   (conj (problem file line (str "printed a deprecation warning (a README block must use the current names): "
                                                 (re-find deprecation-warning output)))))
        ms (quot (- (System/nanoTime) start) 1000000)]
    (if (empty? problems)
      (println (format "ok    %s:%d %s (%d ms)" file line lang ms))
      (do (println (format "FAIL  %s:%d %s (%d ms)" file line lang ms))
          (doseq [p problems] (println (str/replace (str "      " p) "\n" "\n      ")))
          (when-not (str/blank? output)
            (println "      output:")
            (println (str/replace (str "        " (str/trimr output)) "\n" "\n        ")))))
    (empty? problems)))

(defn -main
  "Runs the blocks of every Markdown file given; exits 0 when all passed, 1 otherwise."
  [& paths]
  (let [all (mapcat blocks paths)
        kotlin (run-kotlin-blocks (filter #(= "kotlin" (:lang %)) all))
        results (doall
                 (for [b all]
                   (run-block b (case (:lang b)
                                  "java" (if (= "jshell" (:session b)) #(run-java b) #(run-java-file b))
                                  "clojure" #(run-clojure b)
                                  "kotlin" (let [k (get kotlin b)] (if (fn? k) k (constantly k)))))))
        passed (count (filter true? results))
        failed (count (remove true? results))]
    (println (str passed " passed, " failed " failed"))
    (flush)
    (shutdown-agents)
    (System/exit (if (zero? failed) 0 1))))
