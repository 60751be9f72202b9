namespace WebSocketCodec.SpanNetty.Tests.Infrastructure;

/// <summary>The close of the old SpanNetty sender, on the core sender: starts the close handshake, then waits for the
/// websocket's end and returns how it ended.</summary>
internal static class SenderClosing
{
    public static async Task<WebSocketCloseInfo> CloseAndWaitAsync(
        this WebSocketFrameSender sender, CloseStatus status = CloseStatus.NormalClosure, string? reason = null)
    {
        await sender.CloseAsync(status, reason);
        return await sender.Driver.Completion;
    }
}
