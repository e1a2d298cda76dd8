(ns ^:no-doc weft.ring.impl.admission
  "Internal to weft-ring: what `:limiter` accepts, its deprecated name `:limit`, and the limiter
  a server's options make. Not an API: weft.ring is."
  (:import (dev.weft.limit AdaptiveLimit Limiter)
           (java.time Duration)))

(set! *warn-on-reflection* true)

(deftype DeprecatedLimit [^AdaptiveLimit limit]
  ;; What the deprecated `:limit` becomes under `:limiter`: the AdaptiveLimit, to be built into a
  ;; limiter with `:max-waiting` and `:max-wait` as `:limit` always did.
  Object
  (toString [_] (str "the AdaptiveLimit " limit " given as the deprecated :limit")))

(defn from-adaptive-limit
  "The value of `:limiter` for the deprecated `:limit` (an AdaptiveLimit); anything else is kept
  as it is, for `:limiter`'s check to refuse by name."
  [x]
  (if (instance? AdaptiveLimit x) (DeprecatedLimit. x) x))

(defn limiter-value?
  "Whether `x` is what `:limiter` accepts: a Limiter (or, through `:limit`, an AdaptiveLimit)."
  [x]
  (or (instance? Limiter x) (instance? DeprecatedLimit x)))

(defn shared?
  "Whether the options name a limiter of the caller's own (waiting rules and all)."
  [opts]
  (instance? Limiter (:limiter opts)))

(defn adaptive-limit
  "The AdaptiveLimit given as the deprecated `:limit`, or nil."
  [opts]
  (let [l (:limiter opts)]
    (when (instance? DeprecatedLimit l) (.-limit ^DeprecatedLimit l))))

(defn limiter
  "The limiter that bounds a server's requests: the caller's `:limiter`, or one built from
  `:max-concurrency` (waiting: `:max-waiting`, as many by default) or the deprecated `:limit`
  (waiting: `:max-waiting`, none by default), with `:max-wait`; nil without any."
  ^Limiter [{:keys [max-concurrency limiter max-waiting max-wait] :as opts}]
  (if (shared? opts)
    limiter
    (let [adaptive (adaptive-limit opts)]
      (when (or max-concurrency adaptive)
        (let [b (if adaptive
                  (.maxWaiting (Limiter/builder "ring" ^AdaptiveLimit adaptive) (int (or max-waiting 0)))
                  (.maxWaiting (Limiter/builder "ring" (int max-concurrency)) (int (or max-waiting max-concurrency))))]
          (when max-wait
            (.maxWait b ^Duration max-wait))
          (.build b))))))
