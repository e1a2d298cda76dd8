(ns weft.core
  "Deprecated: the threads area is `weft.thread` now (the old name read like the weft-core
  module, which holds far more than threads). Every var here is the var of the same name in
  `weft.thread`; loading this namespace prints a one-time warning to *err*. Removed in the next
  release: require `weft.thread` instead (doc/options.md, decision 0106)."
  {:deprecated "0.1.0"}
  (:require [weft.thread :as thread]))

(defonce ^:private warned
  (binding [*out* *err*]
    (println (str "WARNING: namespace weft.core is deprecated and will be removed in the next release;"
                  " require weft.thread instead (the same vars; see doc/options.md)"))
    true))

(def ^{:deprecated "0.1.0" :arglists '([] [policy])} thread-policy
  "Deprecated alias of `weft.thread/thread-policy`." thread/thread-policy)

(def ^{:deprecated "0.1.0" :arglists '([name] [name opts])} thread-factory
  "Deprecated alias of `weft.thread/thread-factory`." thread/thread-factory)

(def ^{:deprecated "0.1.0" :arglists '([name] [name opts])} executor
  "Deprecated alias of `weft.thread/executor`." thread/executor)

(def ^{:deprecated "0.1.0" :arglists '([] [thread])} virtual-thread?
  "Deprecated alias of `weft.thread/virtual-thread?`." thread/virtual-thread?)

(def ^{:deprecated "0.1.0" :arglists '([f])} vthread-call
  "Deprecated alias of `weft.thread/vthread-call`." thread/vthread-call)

(def ^{:deprecated "0.1.0" :arglists '([f])} vfuture-call
  "Deprecated alias of `weft.thread/vfuture-call`." thread/vfuture-call)

(def ^{:deprecated "0.1.0" :arglists '([])} scheduler-snapshot
  "Deprecated alias of `weft.thread/scheduler-snapshot`." thread/scheduler-snapshot)

(def ^{:deprecated "0.1.0" :macro true :arglists '([& body])} vthread
  "Deprecated alias of the macro `weft.thread/vthread`." @#'thread/vthread)

(def ^{:deprecated "0.1.0" :macro true :arglists '([& body])} vfuture
  "Deprecated alias of the macro `weft.thread/vfuture`." @#'thread/vfuture)
