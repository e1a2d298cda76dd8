/**
 * weft-audit: finds what pins or starves virtual threads in compiled classes and jars
 * ({@code dev.weft.audit.Auditor}), the engine of {@code weft audit} and weft-maven-plugin.
 *
 * <p>Exports its one package; on the class path the descriptor is ignored (doc/decisions/0107).
 */
module dev.weft.audit {
    requires org.objectweb.asm;
    requires org.objectweb.asm.tree;
    requires org.objectweb.asm.tree.analysis;
    requires com.fasterxml.jackson.databind;

    exports dev.weft.audit;
}
