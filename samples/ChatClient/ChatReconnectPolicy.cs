using System.Security.Authentication;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Samples.ChatClient;

/// <summary>When the chat client tries again: as <see cref="ReconnectPolicy.Default"/> says, except that a server
/// certificate this client refused stops it at once (with <c># stopped not reconnectable: ...</c>): trying again does
/// not make the certificate trusted; <c>--insecure</c> does, for a self-signed one.</summary>
public static class ChatReconnectPolicy
{
    /// <summary>Whether to try again after a websocket ended (<paramref name="closed"/>) or an attempt failed
    /// (<paramref name="error"/>).</summary>
    public static bool ShouldReconnect(WebSocketCloseInfo? closed, Exception? error)
    {
        for (Exception? cause = error; cause is not null; cause = cause.InnerException)
        {
            if (cause is AuthenticationException)
            {
                return false; // the TLS handshake failed: a certificate refused (or no protocol in common)
            }
        }

        return ReconnectPolicy.Default(closed, error);
    }
}
