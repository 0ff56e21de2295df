import { contextBridge } from 'electron';
contextBridge.exposeInMainWorld('speedmatrix', {});
