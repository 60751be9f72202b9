namespace WebSocketCodec;

/// <summary>Packs frames into one buffer for <see cref="WebSocketFrameSender.SendBulkAsync{TState}"/>: write one when a
/// thread off the read loop sends many frames at once and wants them in one buffer and one flush.</summary>
/// <typeparam name="TState">Whatever the action needs, passed without a closure.</typeparam>
/// <param name="writer">Adds frames; the library completes it.</param>
/// <param name="state">The caller's state.</param>
public delegate void BulkWriteAction<in TState>(ref BulkFrameWriter writer, TState state);
