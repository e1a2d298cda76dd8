(ns weft.lab.scenario
  "Helpers for lab scenarios written in Clojure.

  A Clojure scenario is a function of one argument, a `dev.weft.lab.ScenarioContext`,
  registered with `run=clojure:<ns>/<fn>` in `META-INF/weft/scenarios/<name>.properties`.
  These helpers wrap the context's Java API in Clojure terms."
  (:import (dev.weft.lab Mode ScenarioContext Stats)))

(set! *warn-on-reflection* true)

(defn mode
  "The run's mode: `:smoke`, `:quick` or `:full`."
  [^ScenarioContext ctx]
  (keyword (str (.mode ctx))))

(defn size
  "The size for the run's mode."
  [^ScenarioContext ctx smoke quick full]
  (condp = (.mode ctx)
    Mode/SMOKE smoke
    Mode/QUICK quick
    Mode/FULL full))

(defn progress!
  "Prints one progress line under the scenario's name."
  [^ScenarioContext ctx & parts]
  (.progress ctx (apply str parts)))

(defn limit-note!
  "States in one line why the limits are the ceiling."
  [^ScenarioContext ctx line]
  (.limitNote ctx line))

(defn note!
  "Adds a finding worth a sentence in the report."
  [^ScenarioContext ctx line]
  (.note ctx line))

(defn median
  "The median of the numbers `xs`, as every scenario reports it (dev.weft.lab.Stats)."
  ^double [xs]
  (Stats/median ^java.util.Collection (vec xs)))

(defn verdict
  "A goal's verdict, worded as in every scenario: \"met\", \"NOT met\", or
  \"not judged (smoke run)\" in smoke mode. Kept for scenarios that still report goals as
  notes; report a goal with `goal!` instead."
  [^ScenarioContext ctx met?]
  (.verdict ctx (boolean met?)))

(defn- json-key [k]
  (-> (if (keyword? k) (name k) (str k)) (.replace "-" "_")))

(defn- json-value [v]
  (cond
    (map? v) (into {} (map (fn [[k x]] [(json-key k) (json-value x)])) v)
    (keyword? v) (name v)
    (sequential? v) (mapv json-value v)
    :else v))

(defn variant!
  "Reports one variant. `v` has `:name`, `:unit`, `:value` and optionally `:limit`,
  `:published`, `:published-range` ([low high]), `:better` (\"higher\"/\"lower\"),
  `:kind` (\"measured\"/\"extrapolated\"/\"estimated\"), `:limit-label`, `:rounds` (every
  round's figure), `:peak-platform-threads` and `:extra` (a map; its keys become snake_case
  strings in results.json). See dev.weft.lab.ScenarioContext$VariantBuilder."
  [^ScenarioContext ctx v]
  (.addVariant ctx (json-value (select-keys v [:name :unit :value :limit :published :published-range :better :kind
                                               :limit-label :rounds :peak-platform-threads :extra]))))

(defn goal!
  "Reports one goal and returns it (a dev.weft.lab.Goal). `g` has `:name` (one sentence),
  `:target`, `:direction` (`:at-most` or `:at-least`), optionally `:unit` (default \"x\"),
  and exactly one of `:measured` (one figure), `:per-round` (per-round figures, judged by
  their median) or `:numerators` with `:denominators` (two variants' per-round figures, paired
  by round, judged by the median of their ratios). In a smoke run the goal is not judged."
  [^ScenarioContext ctx g]
  (.addGoal ctx (json-value (update g :direction #(some-> % name)))))
