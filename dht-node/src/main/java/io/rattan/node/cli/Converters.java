package io.rattan.node.cli;

import com.google.common.net.InetAddresses;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.node.gateway.http.KeyParser;
import java.net.InetAddress;
import java.net.UnknownHostException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Picocli converters for Rattan's argument types, so a malformed argument is a usage error with a clear message. */
final class Converters {

    private Converters() {
    }

    /**
     * {@code host:port}, {@code [v6addr]:port} for an IPv6 literal, parsed by Guava's {@link HostAndPort}; a bare
     * {@code fe80::1:4000} is refused (which colon starts the port is ambiguous).
     */
    static final class AddressConverter implements ITypeConverter<Address> {
        @Override
        public Address convert(String value) {
            try {
                return Addresses.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not host:port (" + e.getMessage() + ")");
            }
        }
    }

    /**
     * A peer's {@code host:port}, resolved once, here, to an IP literal: peers are known by IP literals only (the
     * handshake proves them), and no host name is ever resolved on a node's loop.
     */
    static final class PeerAddressConverter implements ITypeConverter<Address> {
        @Override
        public Address convert(String value) {
            Address a = new AddressConverter().convert(value);
            if (InetAddresses.isInetAddress(a.host())) {
                return a;
            }
            try {
                return new Address(InetAddresses.toAddrString(InetAddress.getByName(a.host())), a.port());
            } catch (UnknownHostException e) {
                throw new TypeConversionException("cannot resolve '" + a.host() + "': " + e.getMessage());
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
