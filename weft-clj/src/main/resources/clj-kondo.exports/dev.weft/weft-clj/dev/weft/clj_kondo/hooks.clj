(ns dev.weft.clj-kondo.hooks
  "clj-kondo hooks for weft-clj's macros (run by clj-kondo's interpreter, not by Clojure).")

(defmacro with-scope
  "(with-scope [s opts?] body) as clj-kondo should see it: `s` bound for the body, `opts`
  evaluated."
  [[sym opts] & body]
  `(let [~sym ~opts] ~@body))
