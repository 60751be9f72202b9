namespace WebSocketCodec;

/// <summary>Close status codes of RFC 6455 §7.4.1 and the IANA "WebSocket Close Code Number" registry: pass one to a
/// <c>CloseAsync</c> to say why you close, and read one from <see cref="WebSocketCloseInfo.Status"/> to learn why a
/// websocket ended. Applications may also use 3000-4999 (see <see cref="CloseStatusRules"/>).</summary>
public enum CloseStatus : ushort
{
    /// <summary>1000: the purpose of the connection is fulfilled.</summary>
    NormalClosure = 1000,

    /// <summary>1001: the endpoint is going away (server shutdown, page navigation).</summary>
    GoingAway = 1001,

    /// <summary>1002: the peer broke the protocol.</summary>
    ProtocolError = 1002,

    /// <summary>1003: a data type the endpoint cannot accept.</summary>
    UnsupportedData = 1003,

    /// <summary>1005: no status code was present. Reported locally, never sent.</summary>
    NoStatusReceived = 1005,

    /// <summary>1006: the connection closed without a Close frame. Reported locally, never sent.</summary>
    AbnormalClosure = 1006,

    /// <summary>1007: message data inconsistent with its type, e.g. invalid UTF-8 in a text message.</summary>
    InvalidPayloadData = 1007,

    /// <summary>1008: a message violates the endpoint's policy.</summary>
    PolicyViolation = 1008,

    /// <summary>1009: a frame or message too big to process.</summary>
    MessageTooBig = 1009,

    /// <summary>1010: the client expected the server to negotiate an extension.</summary>
    MandatoryExtension = 1010,

    /// <summary>1011: the server met an unexpected condition.</summary>
    InternalError = 1011,

    /// <summary>1012: the service is restarting (IANA registry).</summary>
    ServiceRestart = 1012,

    /// <summary>1013: try again later (IANA registry).</summary>
    TryAgainLater = 1013,

    /// <summary>1014: the gateway or proxy got an invalid response upstream (IANA registry).</summary>
    BadGateway = 1014,

    /// <summary>1015: the TLS handshake failed. Reported locally, never sent.</summary>
    TlsHandshake = 1015,
}
