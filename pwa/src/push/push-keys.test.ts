import { describe, expect, test } from 'vitest';
import { urlBase64ToUint8Array } from './push-keys';

describe('urlBase64ToUint8Array', () => {
  test('decodes base64url without padding, the way VAPID keys are sent', () => {
    const bytes = Uint8Array.from({ length: 65 }, (_, index) => (index * 37 + 250) % 256);
    const text = Buffer.from(bytes).toString('base64url');
    expect(text).not.toContain('=');
    expect(urlBase64ToUint8Array(text)).toEqual(bytes);
  });

  test('reads the URL-safe characters - and _ as + and /', () => {
    expect(Array.from(urlBase64ToUint8Array('-_8'))).toEqual([0xfb, 0xff]);
    expect(Array.from(urlBase64ToUint8Array('_-8'))).toEqual([0xff, 0xef]);
  });

  test('accepts padded text and ignores whitespace', () => {
    expect(Array.from(urlBase64ToUint8Array('AQI='))).toEqual([1, 2]);
    expect(Array.from(urlBase64ToUint8Array(' AQ\nID '))).toEqual([1, 2, 3]);
  });

  test('gives an ArrayBuffer-backed array of the exact length', () => {
    const bytes = urlBase64ToUint8Array('AQIDBA');
    expect(bytes.buffer).toBeInstanceOf(ArrayBuffer);
    expect(bytes.byteLength).toBe(4);
  });

  test('refuses text that is not base64url', () => {
    expect(() => urlBase64ToUint8Array('ab+c')).toThrow('not base64url');
    expect(() => urlBase64ToUint8Array('abcde')).toThrow('not base64url');
  });
});
