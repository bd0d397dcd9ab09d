package io.rattan.node.cli;

import io.rattan.core.id.Id;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.net.Address;
import io.rattan.core.util.Bytes;
import io.rattan.node.gateway.http.KeyParser;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Picocli converters for Rattan's argument types, so a malformed argument is a usage error with a clear message. */
final class Converters {

    private Converters() {
    }

    /** {@code host:port}, {@code [v6addr]:port} for an IPv6 literal. */
    static final class AddressConverter implements ITypeConverter<Address> {
        @Override
        public Address convert(String value) {
            try {
                return Address.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not host:port (" + e.getMessage() + ")");
            }
        }
    }

    /** A key: 40 hex digits or {@code name:<text>}, exactly as the HTTP API takes it. */
    static final class KeyConverter implements ITypeConverter<Id> {
        @Override
        public Id convert(String value) {
            try {
                return KeyParser.parseKey(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A value hash: 64 hex digits. */
    static final class ValueHashConverter implements ITypeConverter<Bytes> {
        @Override
        public Bytes convert(String value) {
            try {
                return KeyParser.parseValueHash(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A routing mode: {@code greedy}, {@code delay-aware} or {@code iterative}. */
    static final class RoutingConverter implements ITypeConverter<RoutingMode> {
        @Override
        public RoutingMode convert(String value) {
            try {
                return RoutingMode.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
