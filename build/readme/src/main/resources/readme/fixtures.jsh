// The names README Java blocks leave to the user, as a user would define them in ./weft jshell.
// The runner evaluates this in every Java block's JShell before the block (doc/readme-blocks.md).
import readme.fixtures.Cache;
import readme.fixtures.LegacyConfig;
java.util.concurrent.atomic.LongAdder pinCounter = new java.util.concurrent.atomic.LongAdder();   // your metric
Cache cache = new Cache();                                                                         // your cache
