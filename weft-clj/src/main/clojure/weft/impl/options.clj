(ns ^:no-doc weft.impl.options
  "Internal to weft: the one checker of weft's Clojure option maps.

  A function declares its options as data with `spec`, checks a map with `check`, and gets the
  options part of its docstring from `doc` (`document!` appends it), so what is accepted and
  what is documented come from one place. Every error is a dev.weft.clj.InvalidOptionException
  (an IllegalArgumentException that `ex-data` reads); see doc/options.md for the rules.

  An option is a map:
    :key        the keyword (required)
    :doc        what it means, for the docstring (required)
    :type       one of the keys of `types` (:duration, :pos-int, :nat-int, :boolean, :string,
                :name, :fn, :any), or give :valid? and :must-be yourself
    :valid?     a predicate of the value; :must-be says what it must be, for the error
    :coerce     a function of the valid value, giving what `check` returns (a :duration's is
                a java.time.Duration)
    :default    the value `check` fills in when the option is absent (or nil, unless :nil says
                what nil means)
    :nil        what an explicit nil means (like \"no limit\"), for an option whose nil is a
                value, not \"not given\": `check` keeps the nil (over the :default) and the
                docstring says \"nil for no limit\". Without it, nil is \"not given\"
    :default-doc what the docstring says of the default when it is not a value (\"no cap\")
    :unit       for the docstring (\"ms or a Duration\" is implied by :duration)
    :aliases    deprecated names: a vector of keywords, or a map of keyword to a function that
                converts the old name's value to the new one's (e.g. seconds to milliseconds)
    :nilable?   false when nil is a bad value rather than \"not given\" (default true)
    :requires   [other-key why]: this option needs that one given too

  Not part of weft's API: use the functions of weft's public namespaces."
  (:require [clojure.string :as str]
            [weft.impl :as impl])
  (:import (dev.weft.clj InvalidOptionException)
           (java.time Duration)))

(set! *warn-on-reflection* true)

(defn error
  "The InvalidOptionException for `fn-name` (\"weft.scope/open\") with `message` (the problem and
  the fix) and `data` (merged into the ex-data, which always has :weft/error and :fn)."
  ^InvalidOptionException [fn-name message data]
  (InvalidOptionException. (str fn-name ": " message)
                           (merge {:weft/error :weft/invalid-option :fn fn-name} data)))

(defn duration?
  "True for what weft accepts as a duration: a java.time.Duration that is not negative, or a
  finite number of milliseconds, 0 or more."
  [x]
  (or (and (instance? Duration x) (not (.isNegative ^Duration x)))
      (and (number? x) (not (neg? x)) (Double/isFinite (double x)))))

(defn- as-name
  "A name given as a string, keyword or symbol (its name, without the colon), or any other value's str."
  ^String [x]
  (if (instance? clojure.lang.Named x) (name x) (str x)))

(defn- name? [x]
  (let [s (as-name x)] (and (not (str/blank? s)) (not (re-find #"\s" s)))))

(def types
  "The usual kinds of option value: what each accepts, says it must be, and turns it into."
  {:duration {:valid? duration?
              :must-be "milliseconds (a number, 0 or more) or a java.time.Duration that is not negative"
              :coerce #(impl/duration "duration" %)
              :unit "ms or a java.time.Duration"}
   :pos-int {:valid? #(and (integer? %) (<= 1 % Integer/MAX_VALUE)) :must-be "a positive integer"
             :coerce int}
   :nat-int {:valid? #(and (integer? %) (<= 0 % Integer/MAX_VALUE)) :must-be "an integer, 0 or more"
             :coerce int}
   :boolean {:valid? boolean? :must-be "true or false"}
   :string {:valid? string? :must-be "a string"}
   :name {:valid? name? :must-be "a non-blank name without whitespace, like \"fetch\""
          :coerce as-name}
   :fn {:valid? ifn? :must-be "a function"}
   :any {:valid? (constantly true) :must-be "anything"}})

(defn instance-of
  "An option kind for values of class `c`, described as `what` (\"a dev.weft.limit.Limiter\")."
  [^Class c what]
  {:valid? #(instance? c %) :must-be what})

(defn one-of
  "An option kind for one of the keywords `ks`, mapped to values by `m` when given (`ks` may be a
  map from keyword to value, which `check` returns in place of the keyword)."
  [ks]
  (let [m (if (map? ks) ks (zipmap ks ks))]
    {:valid? #(contains? m %) :must-be (str "one of " (str/join ", " (map pr-str (sort (keys m)))))
     :coerce m}))

(defn- complete-option [o]
  (let [base (get types (:type o))]
    (when (and (:type o) (nil? base))
      (throw (IllegalArgumentException. (str "unknown option type " (:type o) " for " (:key o)))))
    (let [o (merge base o)
          aliases (:aliases o)]
      (when-not (and (keyword? (:key o)) (string? (:doc o)) (:valid? o) (:must-be o))
        (throw (IllegalArgumentException. (str "an option needs :key, :doc and a :type or :valid?/:must-be; got "
                                               (pr-str (dissoc o :valid? :coerce))))))
      (when (and (contains? o :nil) (or (not (string? (:nil o))) (false? (:nilable? o))))
        (throw (IllegalArgumentException. (str "option " (:key o) ": :nil must be a string saying what nil means,"
                                               " and the option nilable; got :nil " (pr-str (:nil o))
                                               " :nilable? " (pr-str (:nilable? o))))))
      (assoc o
             :aliases (if (map? aliases) aliases (zipmap aliases (repeat nil)))
             :nilable? (:nilable? o true)))))

(defonce ^:private registry
  ;; Every spec made, by function name: what `specs` walks (a test checks each option's nil).
  (atom {}))

(defn specs
  "Every spec made so far (by the namespaces loaded), sorted by function name: for tests that
  walk the options tables."
  []
  (vals (into (sorted-map) @registry)))

(defn spec
  "Options of the function `fn-name` (\"weft.scope/open\"), checked by `check` and documented by
  `doc`. `options` is a vector of option maps (see the namespace docstring). Settings:
    :exclusive  [[a b why] ...]: pairs of options of which only one may be given
    :refused    {key why}: keys that are not options here, with what to do instead
    :example    an example map for the error about options that are not a map"
  ([fn-name options] (spec fn-name options {}))
  ([fn-name options {:keys [exclusive refused example]}]
   (let [options (mapv complete-option options)
         by-key (into {} (map (juxt :key identity)) options)
         aliases (into {} (for [o options [old convert] (:aliases o)] [old [(:key o) convert]]))]
     (-> (swap! registry assoc fn-name
                {:fn fn-name
                 :options options
                 :by-key by-key
                 :aliases aliases
                 :exclusive (vec exclusive)
                 :refused (or refused {})
                 :example (or example "{}")
                 :defaults (into {} (for [o options :when (some? (:default o))]
                                      [(:key o) ((or (:coerce o) identity) (:default o))]))})
         (get fn-name)))))

(defn- edit-distance
  "The edit distance of strings `a` and `b`, a swap of two neighbours counting as one edit
  (optimal string alignment): typos are often swaps."
  ^long [^String a ^String b]
  (let [n (.length a)
        m (.length b)
        d (make-array Long/TYPE (inc n) (inc m))]
    (dotimes [i (inc n)] (aset ^longs (aget ^objects d i) 0 (long i)))
    (dotimes [j (inc m)] (aset ^longs (aget ^objects d 0) j (long j)))
    (doseq [i (range 1 (inc n)) j (range 1 (inc m))]
      (let [cost (if (= (.charAt a (dec i)) (.charAt b (dec j))) 0 1)
            at (fn ^long [i j] (aget ^longs (aget ^objects d i) j))
            best (min (inc (at (dec i) j)) (inc (at i (dec j))) (+ (at (dec i) (dec j)) cost))
            best (if (and (> i 1) (> j 1)
                          (= (.charAt a (dec i)) (.charAt b (- j 2)))
                          (= (.charAt a (- i 2)) (.charAt b (dec j))))
                   (min best (inc (at (- i 2) (- j 2))))
                   best)]
        (aset ^longs (aget ^objects d i) j (long best))))
    (aget ^longs (aget ^objects d n) m)))

(defn closest
  "The key of `known` closest to `k`: the one at the smallest edit distance of their names, if
  at most a third of the longer name differs, or else one whose name starts with `k`'s (or `k`'s
  with it); nil when none is close."
  [k known]
  (let [s (name k)
        close (for [c known
                    :let [cs (name c)
                          d (edit-distance s cs)]
                    :when (or (<= d (max 1 (quot (max (count s) (count cs)) 3)))
                              (str/starts-with? cs s) (str/starts-with? s cs))]
                [d cs c])]
    (when (seq close)
      (peek (first (sort-by (fn [[d cs]] [d cs]) close))))))

(defonce ^:private warned (atom #{}))

(defn- warn-once! [k message]
  (when-not (contains? @warned k)
    (swap! warned conj k)
    (binding [*out* *err*]
      (println (str "WARNING: " message)))))

(defn- warn-deprecated! [fn-name old new]
  (warn-once! [fn-name old] (str fn-name " option " old " is deprecated and will be removed in the next"
                                 " release; use " new " (see doc/options.md)")))

(defn warn-deprecated-fn!
  "Prints, once per JVM, that the function `old` (\"weft.ring/stop-server\") is deprecated for `new`
  (\"weft.ring/stop-server!\"): what a deprecated alias calls before doing what `new` does."
  [old new]
  (warn-once! [old] (str old " is deprecated and will be removed in the next release; use " new
                         " (see CHANGELOG.md)")))

(defn- known-text [spec]
  (str/join ", " (map pr-str (sort (keys (:by-key spec))))))

(defn- unknown-error [spec unknown opts]
  (let [known (sort (keys (:by-key spec)))
        suggestions (into {} (map (juxt identity #(closest % known))) unknown)]
    (error (:fn spec)
           (str "unknown option" (when (next unknown) "s") " "
                (str/join ", " (for [k unknown]
                                 (str k (when-let [c (suggestions k)] (str " (did you mean " c "?)")))))
                "; the options are " (known-text spec)
                ". Options in a namespace (:my.app/key) are ignored, for settings of your own")
           {:unknown (vec unknown) :known (vec known) :did-you-mean suggestions :options opts})))

(defn- rename-aliases
  "`opts` with deprecated names replaced by their new ones (values converted), after a one-time
  warning each; both names given is an error."
  [spec opts]
  (reduce-kv (fn [m k v]
               (if-let [[new convert] (get (:aliases spec) k)]
                 (do (when (contains? opts new)
                       (throw (error (:fn spec) (str "both " k " and " new " were given; " k " is the deprecated"
                                                     " name of " new ": keep " new)
                                     {:option new :value (get opts new) :options opts})))
                     (warn-deprecated! (:fn spec) k new)
                     (assoc (dissoc m k) new (if (and convert (some? v)) (convert v) v)))
                 m))
             opts
             opts))

(defn check
  "Checks `opts` (a map or nil) against `spec` and returns them ready to use: deprecated names
  replaced by their new ones, each value coerced (a duration becomes a java.time.Duration, a
  keyword of `one-of` its value), nil values left out (kept as nil, over the default, when the
  option's :nil says what nil means; an error when the option is not :nilable?) and defaults
  filled in. Namespaced keys are kept as given and not checked. Throws
  dev.weft.clj.InvalidOptionException naming the problem and the fix for options that are not a
  map, an unknown or refused key, a bad value, two exclusive options, or a missing required one."
  [spec opts]
  (cond
    (nil? opts) (:defaults spec)
    (not (map? opts))
    (throw (error (:fn spec) (str "options must be a map, like " (:example spec) "; got " (pr-str opts))
                  {:options opts}))
    (empty? opts) (:defaults spec)
    :else
    (let [fn-name (:fn spec)
          refused (:refused spec)
          _ (when-let [k (some #(when (contains? refused %) %) (keys opts))]
              (throw (error fn-name (str k " is not an option here: " (refused k)) {:option k :options opts})))
          unknown (seq (remove (fn [k] (or (and (keyword? k) (namespace k))
                                           (contains? (:by-key spec) k)
                                           (contains? (:aliases spec) k)))
                               (keys opts)))
          _ (when unknown (throw (unknown-error spec unknown opts)))
          opts' (if (some #(contains? (:aliases spec) %) (keys opts)) (rename-aliases spec opts) opts)
          checked (reduce-kv
                   (fn [m k v]
                     (if-let [o (get (:by-key spec) k)]
                       (cond
                         (and (nil? v) (:nil o)) (assoc m k nil)
                         (and (nil? v) (:nilable? o)) (dissoc m k)
                         ((:valid? o) v) (assoc m k (if-let [c (:coerce o)] (c v) v))
                         :else (throw (error fn-name (str k " must be " (:must-be o) "; got " (pr-str v))
                                             {:option k :value v :options opts})))
                       m))
                   opts'
                   opts')]
      (doseq [[a b why] (:exclusive spec)]
        (when (and (some? (get checked a)) (some? (get checked b)))
          (throw (error fn-name (str a " and " b " were both given; keep one (" why ")")
                        {:option b :options opts}))))
      (doseq [o (:options spec)
              :let [[needed why] (:requires o)]
              :when (and needed (some? (get checked (:key o))) (nil? (get checked needed)))]
        (throw (error fn-name (str (:key o) " needs " needed " (" why ")") {:option (:key o) :options opts})))
      (merge (:defaults spec) checked))))

(defn nil-problems
  "What is wrong with how `spec` treats nil, one string per problem (empty when nothing is):
  an option with :nil must come out of `check` as nil whatever its default; an option that is not
  :nilable? must refuse nil or take it as a value (\"close? false or nil\": false); any other nilable
  option's nil must be \"not given\" (the same as leaving it out); a :doc that speaks of nil
  (\"nil for none\") must say it through :nil, so that `check` honours what it documents."
  [spec]
  (let [fn-name (:fn spec)]
    (for [o (:options spec)
          :let [k (:key o)
                given (try (check spec {k nil}) (catch InvalidOptionException e e))
                absent (check spec {})
                problem (cond
                          (not (:nilable? o))
                          (when-not (or (instance? InvalidOptionException given) (contains? given k))
                            (str k " is not nilable (nil is a value or an error) but check dropped it"))
                          (instance? InvalidOptionException given)
                          (str k " nil was refused: " (ex-message given))
                          (:nil o)
                          (when-not (and (contains? given k) (nil? (get given k)))
                            (str k " is documented \"nil for " (:nil o) "\" but check gave " (pr-str (get given k ::absent))))
                          (re-find #"(?i)(?<![-\w])nil\b" (:doc o))
                          (str k " speaks of nil in its :doc but has no :nil, so check treats nil as not given")
                          :else
                          (when-not (= given absent)
                            (str k " nil is not the same as leaving it out")))]
          :when problem]
      (str fn-name " " problem))))

(defn- wrap-words
  "`text` as lines of at most `width` characters."
  [text width]
  (reduce (fn [lines word]
            (let [line (peek lines)]
              (if (or (str/blank? line) (<= (+ (count line) 1 (count word)) width))
                (conj (pop lines) (if (str/blank? line) word (str line " " word)))
                (conj lines word))))
          [""]
          (str/split (str/trim text) #"\s+")))

(defn- default-text [o]
  (cond
    (:default-doc o) (:default-doc o)
    (instance? Duration (:default o)) (str (.toMillis ^Duration (:default o)) " ms")
    (some? (:default o)) (str (pr-str (:default o)) (when (= :duration (:type o)) " ms"))
    :else nil))

(defn doc
  "The options part of a docstring, rendered from `spec`: one entry per option with what it
  means, its unit and its default, then the deprecated names."
  [spec]
  (let [opts (:options spec)
        width (+ 2 (apply max 0 (map #(count (str (:key %))) opts)))
        pad (apply str (repeat (+ 4 width) \space))
        entry (fn [o]
                (let [text (str (:doc o)
                                (when-let [u (:unit o)] (str " (" u ")"))
                                (when-let [d (default-text o)] (str "; default " d))
                                (when-let [n (:nil o)] (str "; nil for " n)))
                      [first-line & more] (wrap-words text (- 96 (count pad)))]
                  (apply str "    " (format (str "%-" width "s") (:key o)) first-line
                         (map #(str "\n" pad %) more))))
        aliases (for [o opts [old _] (sort-by key (:aliases o))] (str old " -> " (:key o)))]
    (str "  Options:\n"
         (str/join "\n" (map entry opts))
         (when (seq aliases)
           (str "\n  Deprecated names, accepted until the next release: " (str/join ", " aliases)))
         (when-let [ex (seq (:exclusive spec))]
           (str "\n  Give only one of: " (str/join "; " (for [[a b] ex] (str a " and " b))))))))

(defn document!
  "Appends the options part rendered from `spec` to the docstring of var `v`; returns `v`."
  [v spec]
  (alter-meta! v update :doc #(str (str/trimr (or % "")) "\n\n" (doc spec)))
  v)
