namespace WebSocketCodec.Pipelines;

/// <summary>
/// The handshake-completion exchange of the callbacks API: the application receives the frame sender of a new
/// websocket and returns the listener for its inbound frames.
/// </summary>
/// <param name="sender">Sends frames on this websocket.</param>
/// <returns>The listener for inbound frames.</returns>
public delegate IWebSocketFrameListener WebSocketExchange(WebSocketFrameSender sender);
