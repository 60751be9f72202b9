namespace WebSocketCodec.Broadcast.Server;

/// <summary>One variant's way of sending one binary message to every websocket the server holds.</summary>
internal interface IFanOut
{
    /// <summary>Websockets held now.</summary>
    int Count { get; }

    /// <summary>Sends <paramref name="payload"/> to every websocket (the payload is reused once this completes).</summary>
    ValueTask BroadcastAsync(ReadOnlyMemory<byte> payload);

    /// <summary>Recipients skipped so far (a group's <see cref="SlowMemberPolicy.Skip"/>; a loop skips none).</summary>
    long Skipped => 0;

    /// <summary>Members closed so far (a group's <see cref="SlowMemberPolicy.Close"/>; a loop closes none).</summary>
    long Closed => 0;
}
