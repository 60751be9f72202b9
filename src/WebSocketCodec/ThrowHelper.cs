using System.Diagnostics.CodeAnalysis;

namespace WebSocketCodec;

/// <summary>Throw sites kept out of hot, inlined code.</summary>
internal static class ThrowHelper
{
    [DoesNotReturn]
    public static void ThrowArgumentOutOfRange(string paramName) => throw new ArgumentOutOfRangeException(paramName);

    [DoesNotReturn]
    public static void ThrowDestinationTooSmall() =>
        throw new ArgumentException("The destination is too small for the frame.", "destination");

    [DoesNotReturn]
    public static void ThrowInvalidOperation(string message) => throw new InvalidOperationException(message);
}
