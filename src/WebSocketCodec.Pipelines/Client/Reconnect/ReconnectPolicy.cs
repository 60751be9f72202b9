namespace WebSocketCodec.Pipelines;

/// <summary>
/// Whether a <see cref="ReconnectingWebSocket"/> tries again after a websocket ended or an attempt failed: the default
/// rule, which an application's <see cref="ReconnectingWebSocketOptions.ShouldReconnect"/> may call for the cases it
/// does not decide itself.
/// </summary>
public static class ReconnectPolicy
{
    /// <summary>The default rule. After an open websocket ended (<paramref name="closed"/>): the server's Close 1001
    /// (going away), 1008 (policy violation, whatever its reason), 1011 (server error), 1012 (restart), 1013 (try
    /// again later) and 1014 (bad gateway) reconnect; 1000, a Close without status (1005), 1002, 1003, 1007, 1009,
    /// 1010 and application codes (3000 to 4999) stop; without a Close from the server (a lost transport, a keep-alive
    /// or close timeout, a slow server) it reconnects, unless the server broke the protocol. After a failed attempt
    /// (<paramref name="error"/>): a refused or lost connection, a timeout, a 5xx, 408 or 429 answer, or a proxy's 5xx
    /// reconnect; any other answer (other 4xx, a 101 that does not complete the handshake, a proxy's 407),
    /// a failed TLS authentication (the server's certificate not trusted: it will not pass by itself) and any error that
    /// is not a failed handshake (a wrong option, an unsupported proxy) stop.</summary>
    /// <remarks>1008 reconnects for this library's "slow consumer" close, which a client that reads again gets past.
    /// This library also sends 1008 for a message in more fragments than
    /// <see cref="WebSocketSessionOptions.MaxFragmentsPerMessage"/> and for a frame arriving slower than
    /// <see cref="WebSocketSessionOptions.MinFrameDataRate"/>, and other servers often send it to refuse a client
    /// (policy, authorization): after those, reconnecting repeats the failure, as often as the back-off allows. To
    /// reconnect on 1008 only after a slow-consumer close, set <see cref="ReconnectingWebSocketOptions.ShouldReconnect"/>
    /// to a rule that checks <see cref="WebSocketCloseInfo.ReceivedReason"/> (<c>"slow consumer"</c>) and calls this one
    /// for every other case.</remarks>
    /// <param name="closed">How the websocket ended, or null after a failed attempt.</param>
    /// <param name="error">Why the attempt failed, or null after a websocket ended.</param>
    public static bool Default(WebSocketCloseInfo? closed, Exception? error)
    {
        if (closed is not null)
        {
            return closed.ReceivedStatus is { } status
                ? status is CloseStatus.GoingAway or CloseStatus.PolicyViolation or CloseStatus.InternalError
                    or CloseStatus.ServiceRestart or CloseStatus.TryAgainLater || (int)status == 1014
                : closed.EndReason != WebSocketEndReason.ProtocolViolation;
        }

        return error is WebSocketHandshakeException refused && refused.StatusCode switch
        {
            null => ExceptionCause.Find<System.Security.Authentication.AuthenticationException>(refused) is null, // no answer (refused, lost, timed out, cut), but not a certificate refused
            int status when refused.FromProxy => status >= 500, // the proxy could not reach the server (this time)
            int status => status is >= 500 or 408 or 429,
        };
    }
}
