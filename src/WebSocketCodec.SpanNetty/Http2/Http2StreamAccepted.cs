using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>The callback of handshake-only mode (<see cref="Http2WebSocketServer.ConfigureHandshakeOnly"/>), for an
/// application that runs its own byte handlers on each websocket's stream: a websocket's extended CONNECT was validated
/// and answered 200; the stream's child channel now carries its bytes (an <see cref="Http2StreamByteAdapter"/> is first
/// in its pipeline: add the handlers that read and write <c>IByteBuffer</c>s behind it).</summary>
/// <param name="stream">The stream's child channel.</param>
/// <param name="request">The validated request.</param>
/// <param name="subprotocol">The subprotocol answered, if any.</param>
public delegate void Http2StreamAccepted(IChannel stream, WebSocketUpgradeRequest request, string? subprotocol);
