/**
 * Java types of weft's Clojure API ({@code weft-clj}) that Clojure code and callers name:
 * {@link dev.weft.clj.InvalidOptionException}, the one error of weft's Clojure option checking.
 */
package dev.weft.clj;
