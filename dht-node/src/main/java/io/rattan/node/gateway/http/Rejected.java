package io.rattan.node.gateway.http;

/**
 * A request refused before it reaches the node, carrying the response to send. Stackless: it is control flow, thrown
 * by the input checks and caught by {@link ApiRouter}.
 */
final class Rejected extends Exception {

    private static final long serialVersionUID = 1L;
    private final transient ApiResponse response;

    Rejected(ApiResponse response) {
        super(null, null, false, false);
        this.response = response;
    }

    /** A 400 whose detail says what is wrong with the request. */
    static Rejected badRequest(String detail) {
        return new Rejected(Problems.badRequest(detail));
    }

    ApiResponse response() {
        return response;
    }
}
