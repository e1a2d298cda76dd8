(ns weft.otel
  "The current OpenTelemetry context (span, baggage) conveyed by every weft fork, `vthread`,
  `vfuture`, executor and scope, like a context key. Call `install!` once at start-up.

    (require '[weft.otel :as otel])
    (otel/install!)
    ;; a span current here is the parent of spans started in (fork ...), (vfuture ...), ...

  This namespace is in weft-otel, not weft-clj, so that weft-clj never depends on
  OpenTelemetry. The Java side is dev.weft.otel.WeftOtel."
  (:import (dev.weft.context ContextCarrier$Registration)
           (dev.weft.otel WeftOtel)))

(set! *warn-on-reflection* true)

(defn install!
  "Makes every weft conveyance carry the current OpenTelemetry context from now on; calling it
  again returns the same registration. Returns the registration (a java.lang.AutoCloseable):
  `(.close reg)` stops carrying."
  ^ContextCarrier$Registration []
  (WeftOtel/install))
