namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>What a hostile peer gets from the server once it reads: the frames until the transport ended, and whether it
/// ended with a reset (TCP RST, HTTP/2 RST_STREAM) rather than a close.</summary>
public sealed record ServerFrames(List<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)> Frames, bool Reset)
{
    /// <summary>The status of the last frame if it is a Close (1005 for an empty one), else null.</summary>
    public int? CloseStatus => Frames.Count > 0 && Frames[^1].Opcode == WebSocketOpcode.Close
        ? WireFrames.CloseStatusOf(Frames[^1].Payload)
        : null;

    /// <summary>Asserts the peer saw <paramref name="status"/> as the last frame, or a reset that may have erased it: a
    /// server that gives a peer up ends the transport at once (TCP close, or RST_STREAM CANCEL over HTTP/2, which drops
    /// DATA the client had not yet read).</summary>
    public void AssertGivenUpWith(int status)
    {
        if (Reset)
        {
            Assert.True(CloseStatus is null || CloseStatus == status, $"the server's Close was {CloseStatus}");
        }
        else
        {
            Assert.Equal(status, CloseStatus);
        }
    }

    public int Count(WebSocketOpcode opcode) => Frames.Count(frame => frame.Opcode == opcode);

    /// <summary>Reads until the server's Close and the end of the transport that follows it (or a reset).</summary>
    public static async Task<ServerFrames> ReadToEndAsync(RawWebSocket socket)
    {
        var frames = new List<(WebSocketOpcode, bool, byte[])>();
        try
        {
            while (await socket.ReadFrameAsync() is { } frame)
            {
                frames.Add(frame);
            }

            return new ServerFrames(frames, Reset: false);
        }
        catch (IOException)
        {
            return new ServerFrames(frames, Reset: true);
        }
    }
}
