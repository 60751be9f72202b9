namespace WebSocketCodec.Akka.Cluster;

/// <summary>
/// One broadcast on its way between nodes: the opcode's byte, then the payload, in one array made once by the
/// publishing node (<see cref="GroupFrameSerializer"/> sends it as it is; the receiving node broadcasts its payload to
/// its own members, encoded once there).
/// </summary>
internal sealed class GroupFrame(byte[] wire)
{
    public byte[] Wire { get; } = wire;

    public WebSocketOpcode Opcode => (WebSocketOpcode)Wire[0];

    public ReadOnlySpan<byte> Payload => Wire.AsSpan(1);

    public static GroupFrame Create(WebSocketOpcode opcode, ReadOnlySpan<byte> payload)
    {
        byte[] wire = new byte[payload.Length + 1];
        wire[0] = (byte)opcode;
        payload.CopyTo(wire.AsSpan(1));
        return new GroupFrame(wire);
    }
}
